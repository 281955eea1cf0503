// Hand-written backward helpers for the Indexing area (issue 10), declared for the
// generated autograd files; definitions in manual/Indexing.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
