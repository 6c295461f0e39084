/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences nvsim meets, in one place. The NVSIM_HAVE_* macros come from probes of
 * the kernel headers in Kbuild, never from version numbers.
 */
#ifndef NVSIM_COMPAT_H
#define NVSIM_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>

/* class_create() lost its owner argument in 6.4. */
#ifdef NVSIM_HAVE_CLASS_CREATE_NO_OWNER
#define nvsim_class_create(name) class_create(name)
#else
#define nvsim_class_create(name) class_create(THIS_MODULE, name)
#endif

/* The class devnode callback takes a const device from 6.2. */
#ifdef NVSIM_HAVE_CONST_DEVNODE
#define NVSIM_DEVNODE_DEV const struct device
#else
#define NVSIM_DEVNODE_DEV struct device
#endif

/* vm_flags became read-only outside mm in 6.3, set through vm_flags_set(). */
#ifdef NVSIM_HAVE_VM_FLAGS_SET
#define nvsim_vm_flags_set(vma, flags) vm_flags_set(vma, flags)
#else
#define nvsim_vm_flags_set(vma, flags) ((vma)->vm_flags |= (flags))
#endif

#endif /* NVSIM_COMPAT_H */
