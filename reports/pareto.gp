# pareto.gp: p99 ULP error against the cost of a call.
# Usage: gnuplot -c pareto.gp DATA OUT svg|png "NAME1 ..." (names are read from the data)
# Columns: ns_per_call p99_ulp drawn_at name; an infinite p99 ("inf") is drawn at drawn_at.
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set title "Accuracy against cost"
set xlabel "ns per call (this machine)"
set ylabel "p99 ULP error (below 1e-3 drawn at 1e-3; infinite at the top)"
set logscale y
set format y "10^{%L}"
set key off
set offsets graph 0.05, graph 0.2, graph 0.1, graph 0.1
label_of(p, n) = (p eq "inf" ? n." (p99 inf)" : n)
plot data using 1:(clampu($3)) with points pt 7 ps 1.2 lc rgb "#1f77b4", \
     data using 1:(clampu($3)):(label_of(stringcolumn(2), stringcolumn(4))) with labels offset 1,0.6 left font ",9"
