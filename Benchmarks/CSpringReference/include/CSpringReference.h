#ifndef C_SPRING_REFERENCE_H
#define C_SPRING_REFERENCE_H
#include <stddef.h>
#endif
