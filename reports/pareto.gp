# pareto.gp: p99 ULP error against the cost of a call, one colour per formulation (the palette's).
# Usage: gnuplot -c pareto.gp DATA OUT svg|png (names, colours and label positions are read from the data)
# Index 0: ns_per_call p99_ulp drawn_at label_x label_y colour group clipped name "label" (colour: 0xRRGGBB
# as an integer; an infinite p99 is drawn at drawn_at, inside the band "p99 infinite"; an outlier above the
# scale, clipped 1, at the top edge of the finite area with an arrow up, its value in its label); the labels'
# positions are chosen by the report so that no two labels overlap nor cover the band's caption.
# Index 1: xlo xhi ylo yhi band_lo band_hi logx ytic caption_x caption_y clipped.
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
stats data index 1 using 8 nooutput prefix "YT"
stats data index 1 using 9 nooutput prefix "CX"
stats data index 1 using 10 nooutput prefix "CY"
stats data index 1 using 11 nooutput prefix "NC"
set title "Accuracy against cost"
set xlabel "ns per call (this machine; an external solver: its engine's own time)"
set ylabel "p99 ULP error (below 1e-3 drawn at 1e-3)"
set xrange [XLO_max:XHI_max]
set yrange [YLO_max:YHI_max]
if (L_max > 0) { set logscale x; set format x "10^{%L}" }
set logscale y
set format y "10^{%L}"
set ytics nomirror
# Ticks at powers of ten below the band, about eight of them; the band has its own.
ytic_step = 10 ** ceil(log10(BLO_max / YLO_max) / 8)
set ytics 10 ** ceil(log10(YLO_max)), ytic_step, BLO_max
set mytics 1
set ytics add ("p99 = ∞" YT_max)
set object 1 rect from graph 0, first BLO_max to graph 1, first BHI_max fc rgb "#f6e3e3" fs solid 1.0 noborder behind
set label 1 "p99 infinite: NaN or overflow on more than 1% of the timed cases" at first CX_max, first CY_max right font ",9" tc rgb "#883333"
if (NC_max > 0) { set label 2 "arrow up: p99 above the scale (an outlier of the p99s), drawn at its top edge, its value in its label" at screen 0.5, screen 0.085 center font ",9" }
# The key names the groups by their point shapes (black); each point has its formulation's colour.
set bmargin 7
set key at screen 0.5, screen 0.02 center bottom horizontal font ",9" samplen 1
pt_of(g) = g == 1 ? 7 : g == 2 ? 5 : 9
short_title(g) = g == 1 ? "documents' formulas" : g == 2 ? "own kernels, library code" : "engines and solvers"
# An outlier's arrow: from just below its point up to the band.
arrow_len = (BLO_max / YLO_max) ** 0.04
plot for [g=1:3] data index 0 using 1:($7 == g ? clampu($3) : NaN):6 with points pt pt_of(g) ps 1.3 lc rgb variable notitle, \
     data index 0 using 1:($8 > 0 ? $3 : NaN):(0):($3 * (arrow_len - 1)):6 with vectors head filled size screen 0.008,25 lw 2 lc rgb variable notitle, \
     data index 0 using 4:5:10 with labels left font ",9" notitle, \
     for [g=1:3] keyentry with points pt pt_of(g) ps 1.3 lc rgb "black" title short_title(g)
