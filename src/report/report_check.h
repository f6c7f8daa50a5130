/* report_check.h: `toibench report --check DIR`, the report as a browser shows it. */
#ifndef TOI_REPORT_CHECK_H
#define TOI_REPORT_CHECK_H

#include "toi_msg.h"

/// What the page said of itself once loaded (its <pre id="toi-check">) and Chromium's log.
typedef struct report_check_result {
  int images, broken, errors; ///< images, those not loaded, error events and console.error calls
  int console;                ///< console messages in Chromium's log
  int wide;                   ///< summary tables wider than the page (0 when the marker does not say)
  char list[1024];            ///< the sources of the images not loaded, comma-separated
} report_check_result;

/// Reads the marker from a dumped DOM and counts the console lines of log
/// (either may be NULL). 0, or -1 when the DOM has no marker.
int report_check_dom(const char *dom, const char *log, report_check_result *r);
/// The window's width in pixels: every summary table must fit it.
#define REPORT_CHECK_WIDTH "1280"
/// Opens index (the absolute path of DIR/index.html) in headless Chromium
/// ($TOIBENCH_CHROMIUM or chromium) in a window REPORT_CHECK_WIDTH pixels
/// wide, its profile and outputs in the folder tmp (the caller's): every
/// image loaded, no error, every summary table within the page's width, a
/// screenshot in shot. 0 with *r filled when the page passes; -1 after saying
/// why to msg (dir: the folder as it was named, for messages).
int report_check_page(const char *dir, const char *index, const char *tmp, const char *shot, report_check_result *r,
                      const toi_msg *msg);

#endif
