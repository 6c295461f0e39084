/* SPDX-License-Identifier: GPL-2.0 */
/* qgpu: NV_MEMORY_FABRIC objects hold the video memory they map (qgpu_fabric.c). */
#ifndef QGPU_FABRIC_H
#define QGPU_FABRIC_H

#include <linux/types.h>

struct nvrm_alloc;
struct qgpu_file;
struct qgpu_mem_charge;
struct qgpu_rmnode;
struct qgpu_seal;

/**
 * struct qgpu_fabric - an NV_MEMORY_FABRIC allocation in flight
 * @params: qgpu's copy of its parameters, which RM reads (sealed), or NULL
 * @charge: the charge of the memory it names (a reference), or NULL
 */
struct qgpu_fabric {
	void *params;
	struct qgpu_mem_charge *charge;
};

u32 qgpu_fabric_begin(struct qgpu_file *qf, const struct nvrm_alloc *a, struct qgpu_seal *seal,
		      struct qgpu_fabric *fab);
void qgpu_fabric_end(struct qgpu_file *qf, struct qgpu_seal *seal, struct qgpu_fabric *fab,
		     bool rm_ok);
bool qgpu_fabric_made(struct qgpu_fabric *fab, struct qgpu_rmnode *node);

#endif /* QGPU_FABRIC_H */
