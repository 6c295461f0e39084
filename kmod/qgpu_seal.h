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
struct task_struct;

/* Files one call lends at most (struct qgpu_xlate's fd arguments). */
#define QGPU_SEAL_LEND_MAX	2

/**
 * enum qgpu_lend_kind - what a lent file is, and so the one lookup that may find it
 * @QGPU_LEND_CTL: a control node's, for RM's nv_get_file_private(fd, ctl = true)
 * @QGPU_LEND_GPU: a GPU node's, for nv_get_file_private(fd, ctl = false)
 *
 * The lookup answers with the lent file in place of the driver's own checks of the number, so a
 * file must only ever be found as what it is: a UVM file where RM wants one of its own would be
 * read as RM's file private data.
 */
enum qgpu_lend_kind {
	QGPU_LEND_CTL,
	QGPU_LEND_GPU,
};

/**
 * struct qgpu_seal_lend - backend files lent to one call: RM resolves these fd numbers of the
 *	calling task to them (DOC: fd translation in qgpu_fdxlate.c), on the caller's stack
 * @node: in qgpu_seal.c's table of lends while @n > 0, keyed by @task
 * @task: the calling task
 * @n: how many files are lent
 * @fd: the fd numbers, as the tenant passed them (its proxies' numbers)
 * @file: the backend files behind those proxies (a reference each)
 * @kind: what each file is
 */
struct qgpu_seal_lend {
	struct hlist_node node;
	struct task_struct *task;
	unsigned int n;
	int fd[QGPU_SEAL_LEND_MAX];
	struct file *file[QGPU_SEAL_LEND_MAX];
	enum qgpu_lend_kind kind[QGPU_SEAL_LEND_MAX];
};

int qgpu_seal_init(const struct module *backend);
int qgpu_seal_uvm_init(const struct module *uvm);
void qgpu_seal_exit(void);
void qgpu_seal_show(struct seq_file *m);
bool qgpu_seal_ready(void);
int qgpu_seal_fd_init(const struct module *backend);
bool qgpu_seal_fd_ready(void);
bool qgpu_seal_lend(struct qgpu_seal_lend *l, int fd, struct file *file,
		    enum qgpu_lend_kind kind);
void qgpu_seal_lend_end(struct qgpu_seal_lend *l);
long qgpu_forward_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			 void *params, bool *sealed);
long qgpu_forward_sealed_nocopy(struct file *real, unsigned int cmd, unsigned long arg,
				bool compat, void *params, bool *sealed);
long qgpu_forward_uvm_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			     void *params, u32 size, u32 status_off, u32 *status, bool *sealed);
long qgpu_seal_copy_back(long ret, bool sealed, unsigned long arg, const void *params, u32 size);

#endif /* QGPU_SEAL_H */
