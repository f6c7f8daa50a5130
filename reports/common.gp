# common.gp: terminal and style shared by the report's plots.
# Loaded by each plot script after it sets out_file and out_fmt ("svg" or "png").
if (out_fmt eq "png") {
  set terminal pngcairo size 960,600 enhanced font "sans,11" background "white"
} else {
  set terminal svg size 960,600 dynamic enhanced font "sans,12" background "white"
}
set output out_file
set grid lc rgb "#dddddd"
set key outside right top font ",10" spacing 1.1
set border lw 1
# Twenty-four distinguishable colours (formulations first, then engines).
array C[24] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", \
               "#7f7f7f", "#bcbd22", "#000000", "#aec7e8", "#ff9896", "#98df8a", "#ffbb78", "#c5b0d5", \
               "#c49c94", "#f7b6d2", "#9edae5", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173"]
col(i) = C[(i-1)%24+1]
floor_ulp = 1e-3
clampu(x) = (x < floor_ulp ? floor_ulp : x)
