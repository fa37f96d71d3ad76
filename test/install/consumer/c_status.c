/* comprehend.h from C: a def with a syntax error gives an input error and a
 * located message, never an abort. */
#include "comprehend/comprehend.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  comprehend_device_t device = NULL;
  comprehend_def_t def = NULL;
  comprehend_status status = comprehend_device_create(&device, "");
  if (status != COMPREHEND_SUCCESS) {
    fprintf(stderr, "c_status: %s\n", comprehend_last_error());
    return 3;
  }
  status = comprehend_def_create(&def, device, "def f(float(N) A) -> (B) {",
                                 "c.tc", "f", NULL);
  printf("%s: %s\n", comprehend_status_name(status), comprehend_last_error());
  comprehend_device_release(device);
  return status == COMPREHEND_INPUT_ERROR &&
                 strstr(comprehend_last_error(), "c.tc:1:")
             ? 0
             : 1;
}
