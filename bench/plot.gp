# Throughput against read size, from bench/out/throughput.dat (m_sweep.py).
#   gnuplot -e "datafile='bench/out/throughput.dat'; outfile='docs/benchmarks-throughput.png'" bench/plot.gp
if (!exists("datafile")) datafile = 'bench/out/throughput.dat'
if (!exists("outfile")) outfile = 'docs/benchmarks-throughput.png'

set terminal pngcairo size 900,560 enhanced font ",11"
set output outfile
set title "Sequential reads of a 1 GiB ELF section (first 128 MiB): page cache and direct I/O"
set xlabel "read size (KiB, the dd bs=)"
set ylabel "MB/s (median of the runs)"
set logscale x 2
set xtics (4, 16, 64, 256, 1024, 4096)
set xrange [3:5800]
set yrange [0:*]
set grid ytics
set key top left
plot datafile using 1:2 with linespoints lw 2 title "pread of the source (page cache)", \
     '' using 1:3 with linespoints lw 2 title "FUSE ceiling, cold (page cache)", \
     '' using 1:4 with linespoints lw 2 title "FUSE ceiling, cold, direct\\_io", \
     '' using 1:5 with linespoints lw 2 title "elffs, cold", \
     '' using 1:6 with linespoints lw 2 title "elffs, warm", \
     '' using 1:7 with linespoints lw 2 dt 2 title "elffs -o direct\\_io=on, cold", \
     '' using 1:8 with linespoints lw 2 dt 3 title "elffs -o direct\\_io=on, warm"
