// The calls are static inline functions in include/clinux.h; this file gives the target a source.
