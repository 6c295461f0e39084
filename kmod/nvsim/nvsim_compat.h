/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences nvsim meets, in one place. The NVSIM_HAVE_* macros come from probes of
 * the kernel headers in Kbuild, never from version numbers.
 */
#ifndef NVSIM_COMPAT_H
#define NVSIM_COMPAT_H

#include <linux/device.h>

/* class_create() lost its owner argument in 6.4. */
#ifdef NVSIM_HAVE_CLASS_CREATE_NO_OWNER
#define nvsim_class_create(name) class_create(name)
#else
#define nvsim_class_create(name) class_create(THIS_MODULE, name)
#endif

#endif /* NVSIM_COMPAT_H */
