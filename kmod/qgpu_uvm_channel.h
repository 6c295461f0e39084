/* SPDX-License-Identifier: GPL-2.0 */
/* A channel nvidia-uvm retains keeps its charge and its channels count (qgpu_uvm_channel.c). */
#ifndef QGPU_UVM_CHANNEL_H
#define QGPU_UVM_CHANNEL_H

#include <linux/types.h>

struct nvrm_uvm_register_channel;
struct qgpu_file;
struct qgpu_rmtrack;

long qgpu_uvm_channel_register(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			       bool compat, struct nvrm_uvm_register_channel *p);
long qgpu_uvm_channel_unregister(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				 bool compat);
void qgpu_uvm_channels_release(struct qgpu_rmtrack *t, bool pinned);

#endif /* QGPU_UVM_CHANNEL_H */
