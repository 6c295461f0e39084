/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences qgpu meets, in one place. The QGPU_HAVE_* macros come from probes
 * of the kernel headers in Kbuild, never from version numbers.
 */
#ifndef QGPU_COMPAT_H
#define QGPU_COMPAT_H

#include <linux/device.h>
#include <linux/fs.h>

/* class_create() lost its owner argument in 6.4. */
#ifdef QGPU_HAVE_CLASS_CREATE_NO_OWNER
#define qgpu_class_create(name) class_create(name)
#else
#define qgpu_class_create(name) class_create(THIS_MODULE, name)
#endif

/* struct class's devnode callback takes a const device from 6.2. */
#ifdef QGPU_HAVE_DEVNODE_CONST
#define qgpu_devnode_dev_t const struct device
#else
#define qgpu_devnode_dev_t struct device
#endif

/* call_mmap() became vfs_mmap() in 6.15; both call ->mmap (the backend has no mmap_prepare). */
static inline int qgpu_call_mmap(struct file *file, struct vm_area_struct *vma)
{
	return file->f_op->mmap(file, vma);
}

#endif /* QGPU_COMPAT_H */
