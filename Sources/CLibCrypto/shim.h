#ifndef BLOBSTORE_CLIBCRYPTO_SHIM_H
#define BLOBSTORE_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
