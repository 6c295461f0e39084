/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu's compute scheduler: per GPU, which instances may run; acting on their channel groups
 * through qgpu's kernel RM client and on their doorbell mappings (qgpu_vma.c).
 */
#ifndef QGPU_SCHED_H
#define QGPU_SCHED_H

#include <linux/types.h>

struct attribute_group;
struct nvrm_alloc;
struct nvrm_control;
struct nvrm_fifo_disable_channels;
struct nvrm_nvos33_with_fd;
struct qgpu_file;
struct qgpu_gpu;
struct qgpu_instance;
struct qgpu_rmnode;
struct qgpu_sched_inst;
struct vm_area_struct;

extern const struct attribute_group qgpu_sched_gpu_group;
extern const struct attribute_group qgpu_sched_inst_group;

/* GPUs (qgpu_gpu.c) */
int qgpu_sched_gpu_init(struct qgpu_gpu *gpu);
void qgpu_sched_gpu_exit(struct qgpu_gpu *gpu);

/* instances (qgpu_instance.c) */
bool qgpu_sched_admit(struct qgpu_gpu *gpu, struct qgpu_instance *self, u32 core);
int qgpu_sched_inst_init(struct qgpu_instance *inst);
void qgpu_sched_inst_remove(struct qgpu_instance *inst);
void qgpu_sched_inst_free(struct qgpu_instance *inst);

/* escapes (qgpu_escape.c, and imports in qgpu_export.c) */
void qgpu_sched_rm_alloc(struct qgpu_file *qf, struct qgpu_rmnode *node,
			 const struct nvrm_alloc *a);
void qgpu_sched_rm_copy(struct qgpu_file *qf, struct qgpu_rmnode *node);
bool qgpu_sched_is_schedule_control(const struct nvrm_control *c);
long qgpu_sched_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			const struct nvrm_control *c);
void qgpu_sched_map_memory(struct qgpu_file *qf, const struct nvrm_nvos33_with_fd *pre);

/* a tenant's FIFO_DISABLE_CHANNELS, kept to its own clients (qgpu_disable.c) */
bool qgpu_disable_channels(struct qgpu_file *qf, unsigned long arg, const struct nvrm_control *c,
			   long *ret);
u32 qgpu_sched_tenant_disable(struct qgpu_file *qf, struct nvrm_fifo_disable_channels *p);

/* doorbell gating (qgpu_vma.c) */
void qgpu_sched_ring(struct qgpu_sched_inst *si);
void *qgpu_vma_prepare(struct qgpu_file *qf);
void qgpu_vma_wrap(void *ctx, struct vm_area_struct *vma, int ret);

#endif /* QGPU_SCHED_H */
