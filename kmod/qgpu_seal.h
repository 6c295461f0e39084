/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: sealed forwarding: the driver runs a forwarded escape on qgpu's copy of its parameters
 * (DOC: sealed forwarding, qgpu_seal.c).
 */
#ifndef QGPU_SEAL_H
#define QGPU_SEAL_H

#include <linux/types.h>

struct file;
struct module;
struct seq_file;

int qgpu_seal_init(const struct module *backend);
int qgpu_seal_uvm_init(const struct module *uvm);
void qgpu_seal_exit(void);
void qgpu_seal_show(struct seq_file *m);
bool qgpu_seal_ready(void);
long qgpu_forward_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			 void *params, bool *sealed);
long qgpu_forward_sealed_nocopy(struct file *real, unsigned int cmd, unsigned long arg,
				bool compat, void *params, bool *sealed);
long qgpu_forward_uvm_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			     void *params, u32 size, u32 status_off, u32 *status, bool *sealed);
long qgpu_seal_copy_back(long ret, bool sealed, unsigned long arg, const void *params, u32 size);

#endif /* QGPU_SEAL_H */
