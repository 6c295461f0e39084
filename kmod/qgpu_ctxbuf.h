/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: the video memory RM takes for a channel group's context buffers and a channel's instance
 * block, charged to ``mem_max`` (qgpu_ctxbuf.c, DOC: context buffers).
 */
#ifndef QGPU_CTXBUF_H
#define QGPU_CTXBUF_H

#include <linux/types.h>

struct nvrm_alloc;
struct qgpu_file;
struct qgpu_instance;
struct qgpu_mem_charge;
struct qgpu_rmnode;
struct qgpu_seal;

/**
 * struct qgpu_ctxbuf - a channel or channel group in flight, as qgpu_ctxbuf_begin() charged it
 * @params: qgpu's copy of a group's parameters, which RM reads (sealed); NULL for none
 * @charge: what the object will hold, counted in the instance's ``mem_current``; NULL for nothing
 */
struct qgpu_ctxbuf {
	void *params;
	struct qgpu_mem_charge *charge;
};

u32 qgpu_ctxbuf_begin(struct qgpu_file *qf, const struct nvrm_alloc *a, struct qgpu_seal *seal,
		      struct qgpu_ctxbuf *cb);
void qgpu_ctxbuf_end(struct qgpu_file *qf, struct qgpu_seal *seal, struct qgpu_ctxbuf *cb,
		     bool rm_ok);
bool qgpu_ctxbuf_made(struct qgpu_ctxbuf *cb, struct qgpu_rmnode *node);
struct qgpu_mem_charge *qgpu_ctxbuf_own(struct qgpu_instance *inst, u32 hclient, u32 handle,
					u32 *status);
struct qgpu_mem_charge *qgpu_ctxbuf_retained(struct qgpu_instance *inst);

#endif /* QGPU_CTXBUF_H */
