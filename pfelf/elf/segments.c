/* The program header table, loaded on first use, and virtual address to
 * file offset through its PT_LOAD entries. */
#include "pfelf_i.h"

#include <stdlib.h>
#include <string.h>

#define PHDR32_SIZE 32
#define PHDR64_SIZE 56

static void decode_phdr(const pfelf_file *f, const uint8_t *b, uint32_t index, pfelf_phdr *p)
{
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, b, f->is64 ? PHDR64_SIZE : PHDR32_SIZE, f->msb);
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->type = pfelf__get32(&c);
	if (f->is64) {
		p->flags = pfelf__get32(&c);
		p->offset = pfelf__get64(&c);
		p->vaddr = pfelf__get64(&c);
		p->paddr = pfelf__get64(&c);
		p->filesz = pfelf__get64(&c);
		p->memsz = pfelf__get64(&c);
		p->align = pfelf__get64(&c);
	} else {
		p->offset = pfelf__get32(&c);
		p->vaddr = pfelf__get32(&c);
		p->paddr = pfelf__get32(&c);
		p->filesz = pfelf__get32(&c);
		p->memsz = pfelf__get32(&c);
		p->flags = pfelf__get32(&c);
		p->align = pfelf__get32(&c);
	}
	if (!pfelf__range_ok(f->size, p->offset, p->filesz))
		p->status |= PFELF_ST_OUT_OF_FILE;
}

static int load_segments(pfelf_file *f, void *ctx)
{
	(void)ctx;
	uint32_t n = f->eh.phnum;
	if (n == 0)
		return 0;
	size_t esz = f->is64 ? PHDR64_SIZE : PHDR32_SIZE;
	if (f->eh.phentsize < esz || n > SIZE_MAX / f->eh.phentsize)
		return -EINVAL;
	size_t tlen = (size_t)n * f->eh.phentsize;
	if (!pfelf__range_ok(f->size, f->eh.phoff, tlen))
		return -EINVAL;
	uint8_t *raw = malloc(tlen);
	pfelf_phdr *ph = calloc(n, sizeof(*ph));
	int ret = raw && ph ? pfelf__read_range(f, f->eh.phoff, raw, tlen) : -ENOMEM;
	if (ret < 0) {
		free(raw);
		free(ph);
		return ret;
	}
	for (uint32_t i = 0; i < n; i++)
		decode_phdr(f, raw + (size_t)i * f->eh.phentsize, i, &ph[i]);
	free(raw);
	f->ph = ph;
	return 0;
}

PFELF_API int pfelf_segment_count(pfelf_file *f)
{
	int ret = pfelf__load_once(f, &f->ph_state, load_segments);
	if (ret < 0)
		return ret;
	return f->eh.phnum > INT32_MAX ? -EINVAL : (int)f->eh.phnum;
}

PFELF_API int pfelf_segment(pfelf_file *f, uint32_t index, const pfelf_phdr **out)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	if (index >= (uint32_t)n)
		return -ENOENT;
	*out = &f->ph[index];
	return 0;
}

PFELF_API int pfelf_vaddr_to_offset(pfelf_file *f, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_LOAD || (p->status & PFELF_ST_OUT_OF_FILE))
			continue;
		if (vaddr < p->vaddr || vaddr - p->vaddr > p->filesz)
			continue;
		uint64_t in = vaddr - p->vaddr;
		if (len > p->filesz - in)
			continue;
		*off = p->offset + in;
		return 0;
	}
	return -EFAULT;
}
