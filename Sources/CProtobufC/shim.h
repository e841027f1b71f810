#include <protobuf-c/protobuf-c.h>
