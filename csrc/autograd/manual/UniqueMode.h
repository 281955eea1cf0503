// Hand-written backward helpers for the UniqueMode area (issue 10), declared for the
// generated autograd files; definitions in manual/UniqueMode.cpp when the area needs any.
#pragma once
#include "autograd/FunctionsManual.h"
