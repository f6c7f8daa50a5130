# pareto.gp: p99 ULP error against the cost of a call, one colour per formulation (the palette's).
# Usage: gnuplot -c pareto.gp DATA OUT svg|png (names, colours and label positions are read from the data)
# Index 0: ns_per_call p99_ulp drawn_at label_x label_y colour group name (colour: 0xRRGGBB as an
# integer; an infinite p99 is drawn at drawn_at, inside the band "p99 infinite"); the label's position
# is chosen by the report so that no two labels overlap. Index 1: xlo xhi ylo yhi band_lo band_hi logx.
out_file = ARG2
out_fmt = ARG3
data = ARG1
# ARG5..ARG7 read here: inside a loaded file ARGn are those of the load.
colours = ARG5
groups = ARG6
present = ARG7
panels = 1
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
# The frame, one number per column of index 1 (one-column stats: no regression to warn about).
stats data index 1 using 1 nooutput prefix "XLO"
stats data index 1 using 2 nooutput prefix "XHI"
stats data index 1 using 3 nooutput prefix "YLO"
stats data index 1 using 4 nooutput prefix "YHI"
stats data index 1 using 5 nooutput prefix "BLO"
stats data index 1 using 6 nooutput prefix "BHI"
stats data index 1 using 7 nooutput prefix "L"
set title "Accuracy against cost"
set xlabel "ns per call (this machine)"
set ylabel "p99 ULP error (below 1e-3 drawn at 1e-3)"
set xrange [XLO_max:XHI_max]
set yrange [YLO_max:YHI_max]
if (L_max > 0) { set logscale x; set format x "10^{%L}" }
set logscale y
set format y "10^{%L}"
set ytics nomirror
set ytics add ("p99 = ∞" sqrt(BLO_max * BHI_max))
set object 1 rect from graph 0, first BLO_max to graph 1, first BHI_max fc rgb "#f6e3e3" fs solid 1.0 noborder behind
set label 1 "p99 infinite: NaN or overflow on more than 1% of the timed cases" at graph 0.99, first BHI_max / 1.5 right font ",9" tc rgb "#883333"
# The key names the groups by their point shapes (black); each point has its formulation's colour.
set bmargin 6
set key at screen 0.5, screen 0.02 center bottom horizontal font ",9" samplen 1
pt_of(g) = g == 1 ? 7 : g == 2 ? 5 : 9
short_title(g) = g == 1 ? "documents' formulas" : g == 2 ? "own kernels, library code" : "engines and solvers"
plot for [g=1:3] data index 0 using 1:($7 == g ? clampu($3) : NaN):6 with points pt pt_of(g) ps 1.3 lc rgb variable notitle, \
     data index 0 using 4:5:8 with labels left font ",9" notitle, \
     for [g=1:3] keyentry with points pt pt_of(g) ps 1.3 lc rgb "black" title short_title(g)
