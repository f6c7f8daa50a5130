# pareto.gp: p99 ULP error against the cost of a call.
# Usage: gnuplot -c pareto.gp DATA OUT svg|png "NAME1 ..." (names are read from the data)
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
load sprintf("%s/common.gp", system("dirname ".ARG0))
set title "Accuracy against cost"
set xlabel "ns per call (this machine)"
set ylabel "p99 ULP error (below 1e-3 drawn at 1e-3)"
set logscale y
set format y "10^{%L}"
set key off
set offsets graph 0.05, graph 0.2, graph 0.1, graph 0.1
plot data using 1:(clampu($2)) with points pt 7 ps 1.2 lc rgb "#1f77b4", \
     data using 1:(clampu($2)):3 with labels offset 1,0.6 left font ",9"
