/* The smallest tgc program: which library it loaded, against which headers. */
#include "tgc/tgc.h"

#include <stdio.h>

int main(void) {
  printf("library %s, headers %s, last error '%s'\n", tgc_version(),
         TGC_VERSION_STRING, tgc_last_error());
  return 0;
}
