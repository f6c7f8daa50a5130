# classification.gp: missed and ghost collisions against the grazing parameter k.
# Usage: gnuplot -c classification.gp DATA OUT svg|png "NAME1 NAME2 ..."
out_file = ARG2
out_fmt = ARG3
names = ARG4
data = ARG1
# common.gp beside this script, found without a shell: ARG0 up to its last '/'.
gp_dir_end = strlen(ARG0)
while (gp_dir_end > 0 && ARG0[gp_dir_end:gp_dir_end] ne "/") { gp_dir_end = gp_dir_end - 1 }
load (gp_dir_end > 0 ? ARG0[1:gp_dir_end] : "")."common.gp"
set title "Classification errors near grazing (solid: missed, dashed: ghost)"
set xlabel "k"
set ylabel "cases per k"
set yrange [0:*]
plot for [i=1:words(names)] data index (i-1) using 1:6 with linespoints pt 7 ps 0.4 lw 2 lc rgb col(i) title word(names, i), \
     for [i=1:words(names)] data index (i-1) using 1:7 with lines dt 2 lw 1 lc rgb col(i) notitle
