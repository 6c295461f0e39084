// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: share one NVIDIA GPU among containers with hard isolation.
 *
 * For each vGPU instance qgpu creates virtual device nodes that containers mount as their
 * /dev/nvidia*. Every call on them is forwarded to the real NVIDIA driver, and the RM ioctls are
 * decoded to enforce a per-instance memory limit and compute share.
 *
 * This file holds module init and exit, the module parameters and /proc/qgpu.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "qgpu_version.h"

/**
 * DOC: module parameters
 *
 * backend_dir: the directory holding the backend driver's device nodes (nvidiactl, nvidia0..N-1,
 * nvidia-uvm). Defaults to /dev, where the NVIDIA driver's nodes live; tests point it at nvsim's.
 * Read at load time only.
 */
static char *backend_dir = "/dev";
module_param(backend_dir, charp, 0444);
MODULE_PARM_DESC(backend_dir, "Directory of the backend NVIDIA driver's device nodes (default /dev)");

static struct proc_dir_entry *qgpu_proc_dir;

static int qgpu_status_show(struct seq_file *m, void *v)
{
	seq_printf(m, "qgpu %s\n", QGPU_VERSION);
	seq_printf(m, "backend_dir: %s\n", backend_dir);
	return 0;
}

static int __init qgpu_init(void)
{
	qgpu_proc_dir = proc_mkdir("qgpu", NULL);
	if (!qgpu_proc_dir) {
		pr_warn("creating /proc/qgpu failed\n");
		return -ENOMEM;
	}
	if (!proc_create_single("status", 0444, qgpu_proc_dir, qgpu_status_show)) {
		pr_warn("creating /proc/qgpu/status failed\n");
		goto err_remove_proc_dir;
	}
	pr_info("version %s loaded (backend %s)\n", QGPU_VERSION, backend_dir);
	return 0;

err_remove_proc_dir:
	proc_remove(qgpu_proc_dir);
	return -ENOMEM;
}

static void __exit qgpu_exit(void)
{
	proc_remove(qgpu_proc_dir);
}

module_init(qgpu_init);
module_exit(qgpu_exit);

MODULE_DESCRIPTION("qgpu: kernel-level sharing of NVIDIA GPUs among containers");
MODULE_LICENSE("GPL");
MODULE_VERSION(QGPU_VERSION);
