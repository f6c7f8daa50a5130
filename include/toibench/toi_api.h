/* toi_api.h: what the library exports (TOI_API), its version, and the version it was built as (toi_version). */
#ifndef TOI_API_H
#define TOI_API_H

/// Marks a function of the public API: the shared library is built with
/// -fvisibility=hidden and exports these and nothing else (a version script
/// gives them the version node TOIBENCH_0).
#if defined(__GNUC__)
#define TOI_API __attribute__((visibility("default")))
#else
#define TOI_API
#endif

/// Marks a function whose result must be looked at (GCC's warn_unused_result):
/// every function that can fail returns a toi_status marked so.
#if defined(__GNUC__)
#define TOI_MUST_USE __attribute__((warn_unused_result))
#else
#define TOI_MUST_USE
#endif

/// Status codes returned by library functions; 0 is success. A function that
/// can fail returns one and says why through the toi_msg sink it is given.
typedef enum toi_status {
  TOI_OK = 0,
  TOI_ERR_IO = 1,      ///< a file could not be read or written
  TOI_ERR_INPUT = 3,   ///< the input is invalid (see the error list)
  TOI_ERR_NOMEM = 4,   ///< out of memory
  TOI_ERR_RANGE = 5    ///< an argument is outside its legal range
} toi_status;

/// The version of these headers. The SONAME is libtoibench.so.MAJOR; MAJOR
/// changes when a public function or type changes in a way that breaks a
/// program built against an earlier release (0 until the API is declared
/// stable: until then a MINOR release may break it too, and says so).
#define TOI_VERSION_MAJOR 0
#define TOI_VERSION_MINOR 2
#define TOI_VERSION_PATCH 0
#define TOI_VERSION "0.2.0"
/// MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons.
#define TOI_VERSION_NUMBER (TOI_VERSION_MAJOR * 10000 + TOI_VERSION_MINOR * 100 + TOI_VERSION_PATCH)

/// The version of the library linked (TOI_VERSION_NUMBER of its build), which
/// may differ from the headers a program was compiled with when it loads the
/// shared library. Thread-safe.
TOI_API int toi_version(void);
/// The same as a string, "MAJOR.MINOR.PATCH". Thread-safe.
TOI_API const char *toi_version_string(void);

#endif
