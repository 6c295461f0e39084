/* SPDX-License-Identifier: GPL-2.0 */
/* What UVM holds of an instance's memory keeps its charge (qgpu_uvm_hold.c). */
#ifndef QGPU_UVM_HOLD_H
#define QGPU_UVM_HOLD_H

#include <linux/types.h>

struct qgpu_file;
struct qgpu_rmtrack;

bool qgpu_uvm_hold_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			 long *ret);
void qgpu_uvm_release(struct qgpu_rmtrack *t);
bool qgpu_uvm_believed(struct qgpu_file *qf, unsigned long arg, const void *before, u32 same,
		       u32 status_off);
long qgpu_uvm_answer(unsigned long arg, u32 status_off, u32 status);

#endif /* QGPU_UVM_HOLD_H */
