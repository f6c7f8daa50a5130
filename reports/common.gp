# common.gp: terminal, style, palette and panels shared by the report's plots.
# Loaded by each plot script after it sets out_file, out_fmt ("svg" or "png") and, from its arguments
# names (ARG4), colours (ARG5: one "#rrggbb" per name, the report's palette table), groups (ARG6: the
# group of each name, 1 documents, 2 own kernels and the reference, 3 engines), present (ARG7: the
# groups drawn, one panel each) and titles (ARG8: the legend's title of each name, double-quoted: "" for a
# series that draws nothing, "NAME (= OTHER)" for a curve identical to OTHER's, drawn over it).
if (!exists("colours")) { colours = "" }
if (!exists("groups")) { groups = "" }
if (!exists("present") || strlen(present) == 0) { present = "1" }
if (!exists("titles")) { titles = "" }
if (!exists("panels")) { panels = words(present) }
plot_h = panels > 1 ? 80 + 300 * panels : 600
if (out_fmt eq "png") {
  set terminal pngcairo size 960,plot_h enhanced font "sans,11" background "white"
} else {
  set terminal svg size 960,plot_h dynamic enhanced font "sans,12" background "white"
}
set output out_file
set grid lc rgb "#dddddd"
set key outside right top font ",10" spacing 1.1
set border lw 1
# The colour of the i-th name: the palette's, passed by the report (grey when missing).
col(i) = i <= words(colours) ? word(colours, i) : "#777777"
grp(i) = i <= words(groups) ? word(groups, i) + 0 : 1
panel_group(p) = word(present, p) + 0
gtitle(g) = g == 1 ? "formulas from the documents" : g == 2 ? "own kernels, library code and the reference" : "engines and solvers"
# The legend's title of the i-th name (none for a series without data).
tt(i) = i <= words(titles) ? word(titles, i) : word(names, i)
# In panel group g: the value, or NaN for the names of the other groups; their title, or none.
ing(i, g, v) = grp(i) == g ? v : NaN
ttl(i, g) = grp(i) == g ? tt(i) : ""
# A point type per name, filled and open shapes in turn, so that curves drawn over each other stay apart.
ptype(i) = word("7 4 9 6 5 8 11 12 13 10 15 14", (i - 1) % 12 + 1) + 0
floor_ulp = 1e-3
clampu(x) = (x < floor_ulp ? floor_ulp : x)
# Panels share their left and right edges, whatever the width of their keys.
if (panels > 1) { set lmargin at screen 0.09; set rmargin at screen 0.78 }
