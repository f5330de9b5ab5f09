// npz: the arrays of a NumPy .npz archive (np.savez: a zip of uncompressed .npy files),
// read whole into memory. Internal to src/import.
#ifndef TT_IMPORT_NPZ_H
#define TT_IMPORT_NPZ_H

#include "core/core.h"

typedef struct tt_npz tt_npz;

// Refused: a compressed archive (np.savez_compressed), Fortran order, a dtype other than
// <f4 <f2 <f8 <i4 <i8 |u1 |b1, an entry that is not a .npy file or runs past the archive.
tt_status tt_npz_open(const char *path, tt_npz **out, tt_error *err);
size_t tt_npz_count(const tt_npz *z);
const tt_tensor *tt_npz_get(const tt_npz *z, size_t i);  // named without ".npy"
void tt_npz_close(tt_npz *z);

#endif
