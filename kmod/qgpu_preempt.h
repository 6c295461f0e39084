/* SPDX-License-Identifier: GPL-2.0 */
#ifndef QGPU_PREEMPT_H
#define QGPU_PREEMPT_H

#include <linux/types.h>

#include "nvrm/nvrm_decode.h"

struct qgpu_file;
struct qgpu_rmnode;

void qgpu_preempt_rm_alloc(struct qgpu_file *qf, struct qgpu_rmnode *node);
bool qgpu_preempt_bind_refused(struct qgpu_file *qf, const struct nvrm_control *c,
			       const void *params);
bool qgpu_preempt_control(struct qgpu_file *qf, unsigned long arg, const struct nvrm_control *c,
			  long *ret);

#endif
