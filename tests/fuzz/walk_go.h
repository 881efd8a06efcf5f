/*
 * The walk of Go's tables (walk_go.c): every pfelf_go_* call on an open
 * handle, each answer checked against the contract of pfelf.h and against
 * the others (a function's lookup gives it back, rows tile it and agree
 * with the lookups, compile units are found by their offset).
 */
#ifndef WALK_GO_H
#define WALK_GO_H

#include <pfelf.h>

/* Most functions, rows of one function and compile units walked. */
#define WALK_GO_FUNCS 2048
#define WALK_GO_ROWS  4096
#define WALK_GO_UNITS 256
/* Rows of a function whose ends are looked up. */
#define WALK_GO_LOOKUPS 64

void walk_go(pfelf_file *f);

#endif /* WALK_GO_H */
