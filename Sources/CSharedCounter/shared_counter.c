// The operations are inline in include/shared_counter.h; a C target needs one source file.
#include "shared_counter.h"
