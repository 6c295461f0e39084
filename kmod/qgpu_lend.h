/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: backend files lent to one forwarded call: the driver's lookup of the tenant's own fd
 * number finds the real file, which never enters the tenant's fd table (DOC: lent files,
 * qgpu_lend.c).
 */
#ifndef QGPU_LEND_H
#define QGPU_LEND_H

#include <linux/types.h>

struct file;
struct module;
struct seq_file;
struct task_struct;

/* Files one call lends at most (struct qgpu_xlate's fd arguments). */
#define QGPU_LEND_MAX	2

/**
 * enum qgpu_lend_kind - what a lent file is, and so the one lookup that may find it
 * @QGPU_LEND_CTL: a control node's, for RM's nv_get_file_private(fd, ctl = true)
 * @QGPU_LEND_GPU: a GPU node's, for nv_get_file_private(fd, ctl = false)
 * @QGPU_LEND_UVM: a UVM VA space's, for nvidia-uvm's fget(uvmFd)
 *
 * The lookup answers with the lent file in place of the driver's own checks of the number, so a
 * file must only ever be found as what it is: a UVM file where RM wants one of its own would be
 * read as RM's file private data.
 */
enum qgpu_lend_kind {
	QGPU_LEND_CTL,
	QGPU_LEND_GPU,
	QGPU_LEND_UVM,
};

/**
 * struct qgpu_lend - backend files lent to one call, on the caller's stack
 * @node: in qgpu_lend.c's table while @n > 0, keyed by @task
 * @task: the calling task
 * @n: how many files are lent
 * @fd: the fd numbers, as the tenant passed them (its proxies' numbers)
 * @file: the backend files behind those proxies (a reference each)
 * @kind: what each file is
 * @armed: the probe on fget is armed for this call (a UVM file is lent)
 */
struct qgpu_lend {
	struct hlist_node node;
	struct task_struct *task;
	unsigned int n;
	int fd[QGPU_LEND_MAX];
	struct file *file[QGPU_LEND_MAX];
	enum qgpu_lend_kind kind[QGPU_LEND_MAX];
	bool armed;
};

int qgpu_lend_init(const struct module *backend);
void qgpu_lend_exit(void);
void qgpu_lend_show(struct seq_file *m);
bool qgpu_lend_rm_ready(void);
bool qgpu_lend_uvm_ready(void);
void qgpu_lend_begin(struct qgpu_lend *l);
bool qgpu_lend_file(struct qgpu_lend *l, int fd, struct file *file, enum qgpu_lend_kind kind);
void qgpu_lend_end(struct qgpu_lend *l);

#endif /* QGPU_LEND_H */
