/* SPDX-License-Identifier: GPL-2.0 */
/* qgpu: the GPU virtual address space an instance's RM mappings span (qgpu_mapped.c). */
#ifndef QGPU_MAPPED_H
#define QGPU_MAPPED_H

#include <linux/sysfs.h>
#include <linux/types.h>

struct nvrm_alloc;
struct nvrm_control;
struct qgpu_file;
struct qgpu_instance;
struct qgpu_seal;
struct qgpu_rmnode;
struct qgpu_rmtrack;

long qgpu_mapped_map_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat);
long qgpu_mapped_unmap_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			     bool compat);
void qgpu_mapped_node_gone(struct qgpu_instance *inst, struct qgpu_rmnode *node);
void qgpu_mapped_settle(struct qgpu_instance *inst, u32 reserved, s64 held);

/**
 * struct qgpu_mapped_virtual - an NV50_MEMORY_VIRTUAL allocation in flight (qgpu_mapped.c)
 * @params: qgpu's copy of its parameters, which RM reads (sealed), or NULL
 * @units: the regions reserved for what RM maps up front
 */
struct qgpu_mapped_virtual {
	void *params;
	u32 units;
};

u32 qgpu_mapped_virtual_begin(struct qgpu_file *qf, const struct nvrm_alloc *a,
			      struct qgpu_seal *seal, struct qgpu_mapped_virtual *v);
void qgpu_mapped_virtual_end(struct qgpu_file *qf, struct qgpu_seal *seal,
			     struct qgpu_mapped_virtual *v, bool rm_ok, bool unsure);
u32 qgpu_mapped_virtual_reserve(struct qgpu_file *qf, u32 flags, u64 size, u32 *units);
void qgpu_mapped_virtual_made(struct qgpu_rmtrack *t, struct qgpu_rmnode *node, u32 units);
void qgpu_mapped_release(struct qgpu_rmtrack *t);
bool qgpu_mapped_alloc_refused(struct qgpu_file *qf, u32 hclass);
bool qgpu_mapped_control(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
			 long *ret);

extern const struct attribute_group qgpu_mapped_instance_group;

#endif /* QGPU_MAPPED_H */
