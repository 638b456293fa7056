/* A C example's statements, as the body of main (the block includes the header itself); the
   program fails unless the block's last status is sk_status_ok. */
#include "spring_kernel.h"

int main(void) {
/* DOC BLOCK */
    return status == sk_status_ok ? 0 : 1;
}
