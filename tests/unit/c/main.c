// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu-unit-tests: runs every TEST() linked into the binary and prints TAP.
 * Usage: qgpu-unit-tests [NAME-SUBSTRING]
 */
#define TAP_IMPLEMENTATION
#include "tap.h"

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
