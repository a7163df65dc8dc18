// The calls are static inline functions in include/cepoll.h; this file gives the target a source.
#include "cepoll.h"
