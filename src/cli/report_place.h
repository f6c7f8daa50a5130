/* report_place.h: the report's folder on disk and the temporary folder of its browser check (report_place.c). */
#ifndef TOI_REPORT_PLACE_H
#define TOI_REPORT_PLACE_H

#include "report.h"

/// Writes the report into dir (report_write_files into a temporary folder
/// beside it, then swapped into place). 0 or -1 (error printed).
int report_write(const rep_data *d, const char *dir);
/// 0 when dir can be the report's folder (its path is not too long for the
/// temporary folder beside it and the files in it; it is absent, empty, or a
/// report's folder holding nothing but what that report made), else -1 after
/// saying why.
int report_out_check(const char *dir);
/// Opens DIR/index.html in headless Chromium (report_check_page) with its
/// profile in a temporary folder removed afterwards and on a signal; says
/// the outcome on stderr. EXIT_OK or EXIT_RUNTIME.
int report_check(const char *dir, const char *shot);

#endif
