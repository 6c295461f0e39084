/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: sealed forwarding: the driver runs a forwarded escape on qgpu's copy of its parameters
 * (DOC: sealed forwarding, qgpu_seal.c).
 */
#ifndef QGPU_SEAL_H
#define QGPU_SEAL_H

#include <linux/list.h>
#include <linux/types.h>

struct file;
struct module;
struct mutex;
struct seq_file;
struct task_struct;

/**
 * struct qgpu_seal - one sealed forward in flight, on its caller's stack
 * @node: in qgpu_seals, keyed by @task
 * @task: the calling task; only its own entry to the site is sealed
 * @params: qgpu's copy of the parameters, which the driver reads and writes instead of its own
 * @site: where (enum qgpu_seal_site, qgpu_seal.c)
 * @nr: the escape number the driver passes rm_ioctl as cmd (QGPU_SEAL_RM)
 * @size: the parameters' size (QGPU_SEAL_RM, QGPU_SEAL_RM_PARAMS)
 * @uptr: the tenant's address of the parameters RM copies (QGPU_SEAL_RM_PARAMS)
 * @gpu_id: the one GPU an ATTACH_GPUS_TO_FD may take (QGPU_SEAL_ATTACH)
 * @refused: the ids of other GPUs the driver was kept from taking (QGPU_SEAL_ATTACH)
 * @status: what the UVM handler returned, once @returned
 * @hit: the site was entered with @params (QGPU_SEAL_ATTACH: entered by @task)
 * @returned: a UVM handler entered with @params returned; RM's copy of @uptr was replaced
 * @registered: in qgpu_seals (qgpu_seal_params_begin() registers only where the probe is)
 */
struct qgpu_seal {
	struct hlist_node node;
	struct task_struct *task;
	void *params;
	int site;
	u32 nr;
	u32 size;
	u64 uptr;
	u32 gpu_id;
	u32 refused;
	u32 status;
	bool hit;
	bool returned;
	bool registered;
};

int qgpu_seal_init(const struct module *backend);
int qgpu_seal_uvm_init(const struct module *uvm);
void qgpu_seal_exit(void);
void qgpu_seal_show(struct seq_file *m);
bool qgpu_seal_ready(void);
int qgpu_seal_params_lock(struct mutex *lock, struct qgpu_seal *s, u64 uptr, void *copy, u32 size);
bool qgpu_seal_params_unlock(struct mutex *lock, struct qgpu_seal *s, bool rm_ok);
long qgpu_forward_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			 void *params, bool *sealed);
long qgpu_forward_sealed_nocopy(struct file *real, unsigned int cmd, unsigned long arg,
				bool compat, void *params, bool *sealed);
long qgpu_forward_uvm_sealed(struct file *real, unsigned int cmd, unsigned long arg, bool compat,
			     void *params, u32 size, u32 status_off, u32 *status, bool *sealed);
long qgpu_forward_attach_sealed(struct file *real, unsigned int cmd, unsigned long arg,
				bool compat, u32 gpu_id, u32 *refused);
long qgpu_seal_copy_back(long ret, bool sealed, unsigned long arg, const void *params, u32 size);

#endif /* QGPU_SEAL_H */
