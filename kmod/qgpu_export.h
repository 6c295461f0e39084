/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: RM objects exported into a nvidiactl fd and imported from it (NV0000 OS_UNIX export
 * controls), and the memory charges those exports hold.
 */
#ifndef QGPU_EXPORT_H
#define QGPU_EXPORT_H

#include <linux/types.h>

struct nvrm_control;
struct qgpu_file;
struct qgpu_rmtrack;

bool qgpu_export_control(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
			 long *ret);
void qgpu_export_release(struct qgpu_rmtrack *t);

#endif /* QGPU_EXPORT_H */
