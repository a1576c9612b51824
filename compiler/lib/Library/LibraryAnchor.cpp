// libtgc.so is assembled from the TGDriver and tgc_runtime archives (linked
// whole, so that every tgc_* entry point is exported); this file only gives
// the library target a source of its own.
extern "C" const char *tgc_library_name(void) { return "libtgc"; }
