#include "CSpringReference.h"
