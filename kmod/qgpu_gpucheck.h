/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: the driver's GPU-file check answered for a tenant's call, without a real file in its fd
 * table (DOC: GPU-file check, qgpu_gpucheck.c).
 */
#ifndef QGPU_GPUCHECK_H
#define QGPU_GPUCHECK_H

#include <linux/types.h>

struct module;
struct seq_file;
struct task_struct;

/**
 * struct qgpu_gpucheck - one call's GPU-file check, on the caller's stack
 * @node: in qgpu_gpucheck.c's table while registered, keyed by @task
 * @task: the calling task; only its own checks are answered or watched
 * @gpu: the GPU the check is answered for, as the driver names it (its nv_state_t; never
 *	dereferenced); NULL while learning
 * @seen: learning: the GPU the driver asked about; ERR_PTR(-EINVAL) after two different ones
 * @registered: in the table
 */
struct qgpu_gpucheck {
	struct hlist_node node;
	struct task_struct *task;
	const void *gpu;
	const void *seen;
	bool registered;
};

int qgpu_gpucheck_init(const struct module *backend);
void qgpu_gpucheck_exit(void);
bool qgpu_gpucheck_ready(void);
void qgpu_gpucheck_show(struct seq_file *m);
void qgpu_gpucheck_learn_begin(struct qgpu_gpucheck *c);
const void *qgpu_gpucheck_learn_end(struct qgpu_gpucheck *c);
bool qgpu_gpucheck_grant(struct qgpu_gpucheck *c, const void *gpu);
void qgpu_gpucheck_end(struct qgpu_gpucheck *c);

#endif /* QGPU_GPUCHECK_H */
