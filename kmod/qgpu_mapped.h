/* SPDX-License-Identifier: GPL-2.0 */
/* qgpu: the GPU virtual address space an instance's RM mappings span (qgpu_mapped.c). */
#ifndef QGPU_MAPPED_H
#define QGPU_MAPPED_H

#include <linux/sysfs.h>
#include <linux/types.h>

struct qgpu_file;
struct qgpu_rmnode;
struct qgpu_rmtrack;

long qgpu_mapped_map_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat);
long qgpu_mapped_unmap_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			     bool compat);
void qgpu_mapped_node_gone(struct qgpu_rmnode *node);
void qgpu_mapped_release(struct qgpu_rmtrack *t);

extern const struct attribute_group qgpu_mapped_instance_group;

#endif /* QGPU_MAPPED_H */
