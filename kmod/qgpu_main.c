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

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "qgpu_compat.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_seal.h"
#include "qgpu_rmtrack.h"
#include "qgpu_netlink.h"
#include "qgpu_version.h"

/**
 * DOC: module parameters
 *
 * backend_dir: the directory holding the backend driver's device nodes (nvidiactl, nvidia0..N-1,
 * nvidia-uvm). Defaults to /dev, where the NVIDIA driver's nodes live; tests point it at nvsim's.
 * Read at load time only: qgpu resolves it once, in the mount namespace of the process loading
 * the module, and opens every backend node relative to that directory. A container whose own
 * /dev/nvidiactl is an instance node therefore never makes qgpu open itself.
 */
static char *backend_dir = "/dev";
module_param(backend_dir, charp, 0444);
MODULE_PARM_DESC(backend_dir, "Directory of the backend NVIDIA driver's device nodes (default /dev)");

/*
 * seal: place qgpu's probes on the backend driver (default on): on rm_ioctl and nvidia-uvm's
 * handlers (DOC: sealed forwarding), on nv_get_file_private and the kernel's fget (DOC: lent
 * files) and on nv_is_gpu_accessible (DOC: GPU-file check). Off, qgpu forwards as without
 * kprobes: for a host whose policy forbids kprobes on the driver, and for measuring the seal
 * (the tests cover the paths qgpu then takes). Read at load time only.
 */
static bool seal = true;
module_param(seal, bool, 0444);
MODULE_PARM_DESC(seal,
		 "Seal forwarded calls with probes on the driver: rm_ioctl, UVM handlers, fd and GPU-file lookups (default Y)");

/**
 * DOC: module unload
 *
 * Every instance holds a reference on the module from its creation to its removal, so
 * ``rmmod qgpu`` is refused ("in use") while any instance exists; remove the instances first
 * (their ``remove`` knob). Open instance nodes hold the module too, through their file
 * operations, which also covers the files left open after a forced removal.
 */

/* Protects the instance registry and instance state; see qgpu_internal.h. */
DEFINE_MUTEX(qgpu_lock);
struct class *qgpu_class;
dev_t qgpu_devt;
struct path qgpu_backend_path;
bool qgpu_have_backend;

static struct cdev qgpu_cdev;
static struct proc_dir_entry *qgpu_proc_dir;

static int qgpu_status_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_printf(m, "qgpu %s\n", QGPU_VERSION);
	seq_printf(m, "backend_dir: %s\n", backend_dir);
	seq_printf(m, "rm_client: %s\n", qgpu_kclient_source());
	qgpu_seal_show(m);
	qgpu_lend_show(m);
	qgpu_gpucheck_show(m);
	seq_printf(m, "gpus: %u\n", qgpu_num_gpus);
	for (i = 0; i < qgpu_num_gpus; i++) {
		struct qgpu_gpu *gpu = qgpu_gpus[i];

		seq_printf(m, "\ngpu %u: %s\n", gpu->index, gpu->name);
		seq_printf(m, "  uuid:            %s\n", gpu->uuid[0] ? gpu->uuid : "-");
		seq_printf(m, "  memory:          %llu\n", gpu->memory);
		seq_printf(m, "  driver_version:  %s%s\n", gpu->version,
			   gpu->abi_known ? "" : " (not supported: instances cannot be created)");
		seq_printf(m, "  unknown_escapes: %s (%lld seen)\n",
			   READ_ONCE(gpu->refuse_unknown_escapes) ? "refuse" : "allow",
			   (long long)atomic64_read(&gpu->unknown_escapes));
		qgpu_status_show_instances(m, gpu);
	}
	return 0;
}

/*
 * Instance nodes are named qgpu/<instance>/<node> so that devtmpfs creates them in their own
 * directory without a udev daemon; root only (containers get them through their runtime).
 */
static char *qgpu_devnode(qgpu_devnode_dev_t *dev, umode_t *mode)
{
	const struct qgpu_instance *inst = dev_get_drvdata(dev);

	if (!dev->devt || !inst)
		return NULL;
	if (mode)
		*mode = 0660;
	return kasprintf(GFP_KERNEL, "qgpu/%s/%s", inst->name,
			 qgpu_node_name(MINOR(dev->devt) % QGPU_NODES));
}

/* The backend directory, resolved once in the loader's namespace (see DOC: module parameters). */
static void qgpu_resolve_backend(void)
{
	int ret = kern_path(backend_dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &qgpu_backend_path);

	if (ret) {
		pr_warn("backend_dir %s: not a directory (%d); no GPUs\n", backend_dir, ret);
		return;
	}
	qgpu_have_backend = true;
}

/*
 * qgpu's own RM client in the backend. Without one, instances still forward; what needs it
 * (memory-limit verification, compute scheduling) says so where it is used.
 */
static void qgpu_start_kclient(void)
{
	int ret;

	if (!qgpu_num_gpus || !qgpu_gpus[0]->abi_known)
		return;
	ret = qgpu_kclient_init(&qgpu_gpus[0]->abi);
	if (ret == -ENOENT)
		pr_info("the backend exports no kernel RM interface\n");
}

/*
 * The probe that seals forwards (DOC: sealed forwarding). Without it instances still forward,
 * unsealed; the status line and qgpuctl doctor say so.
 */
static void qgpu_start_seal(void)
{
	const struct file_operations *fops = qgpu_backend_fops[QGPU_NODE_CTL];
	int ret;

	if (!qgpu_num_gpus || !fops)
		return;
	if (!seal) {
		pr_warn("forwards are not sealed: seal=0\n");
		return;
	}
	ret = qgpu_seal_init(fops->owner);
	if (ret)
		pr_warn("forwards are not sealed: no probe on the backend's rm_ioctl (%d)\n", ret);
	qgpu_lend_init(fops->owner);	/* it says why not */
	fops = qgpu_backend_fops[QGPU_NODE_UVM];
	if (fops)
		qgpu_seal_uvm_init(fops->owner);	/* it says why not */
}

static int __init qgpu_init(void)
{
	int ret;

	qgpu_fdxlate_init();
	qgpu_escape_init();
	ret = qgpu_rmtrack_init();
	if (ret)
		return ret;
	ret = alloc_chrdev_region(&qgpu_devt, 0, QGPU_MAX_INSTANCES * QGPU_NODES, "qgpu");
	if (ret) {
		pr_warn("allocating a device major failed (%d)\n", ret);
		goto err_rmtrack_exit;
	}
	cdev_init(&qgpu_cdev, &qgpu_fops);
	ret = cdev_add(&qgpu_cdev, qgpu_devt, QGPU_MAX_INSTANCES * QGPU_NODES);
	if (ret) {
		pr_warn("cdev_add failed (%d)\n", ret);
		goto err_unregister_region;
	}
	qgpu_class = qgpu_class_create("qgpu");
	if (IS_ERR(qgpu_class)) {
		ret = PTR_ERR(qgpu_class);
		pr_warn("class_create failed (%d)\n", ret);
		goto err_del_cdev;
	}
	qgpu_class->devnode = qgpu_devnode;

	ret = -ENOMEM;
	qgpu_proc_dir = proc_mkdir("qgpu", NULL);
	if (!qgpu_proc_dir) {
		pr_warn("creating /proc/qgpu failed\n");
		goto err_destroy_class;
	}
	if (!proc_create_single("status", 0444, qgpu_proc_dir, qgpu_status_show)) {
		pr_warn("creating /proc/qgpu/status failed\n");
		goto err_remove_proc_dir;
	}
	ret = qgpu_netlink_init();
	if (ret) {
		pr_warn("registering the generic netlink family failed (%d)\n", ret);
		goto err_remove_proc_dir;
	}

	/* ORDER: GPU parents live in qgpu_class; a backend that is missing is not an error. */
	qgpu_resolve_backend();
	if (qgpu_have_backend) {
		ret = qgpu_probe_backend(seal);
		if (ret)
			goto err_remove_gpus;
		qgpu_start_kclient();
		qgpu_start_seal();
	}
	pr_info("version %s loaded (backend %s, %u GPU(s))\n", QGPU_VERSION, backend_dir,
		qgpu_num_gpus);
	return 0;

err_remove_gpus:
	qgpu_seal_exit();
	qgpu_lend_exit();
	qgpu_gpucheck_exit();
	qgpu_kclient_exit();
	qgpu_gpus_remove_all();
	path_put(&qgpu_backend_path);
	qgpu_netlink_exit();
err_remove_proc_dir:
	proc_remove(qgpu_proc_dir);
err_destroy_class:
	class_destroy(qgpu_class);
err_del_cdev:
	cdev_del(&qgpu_cdev);
err_unregister_region:
	unregister_chrdev_region(qgpu_devt, QGPU_MAX_INSTANCES * QGPU_NODES);
err_rmtrack_exit:
	qgpu_rmtrack_exit();
	return ret;
}

/* ORDER: the reverse of qgpu_init(). No instance exists: each holds a module reference. */
static void __exit qgpu_exit(void)
{
	qgpu_rmtrack_exit();
	qgpu_seal_exit();
	qgpu_lend_exit();
	qgpu_gpucheck_exit();
	qgpu_kclient_exit();
	qgpu_gpus_remove_all();
	if (qgpu_have_backend)
		path_put(&qgpu_backend_path);
	qgpu_netlink_exit();
	proc_remove(qgpu_proc_dir);
	class_destroy(qgpu_class);
	cdev_del(&qgpu_cdev);
	unregister_chrdev_region(qgpu_devt, QGPU_MAX_INSTANCES * QGPU_NODES);
}

module_init(qgpu_init);
module_exit(qgpu_exit);

MODULE_DESCRIPTION("qgpu: kernel-level sharing of NVIDIA GPUs among containers");
MODULE_LICENSE("GPL");
MODULE_VERSION(QGPU_VERSION);
