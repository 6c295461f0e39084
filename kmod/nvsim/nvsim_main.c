// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: a simulated NVIDIA kernel driver.
 *
 * No machine the project is tested on has an NVIDIA GPU, so nvsim stands in for the NVIDIA driver
 * in every test, benchmark and the demo. It creates the device nodes the real driver's users
 * expect: /dev/nvidiactl (195:255), /dev/nvidia0..N-1 (195:N) and /dev/nvidia-uvm (dynamic
 * major, nvsim_uvm.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvsim_compat.h"
#include "nvsim_internal.h"

/**
 * DOC: module parameters
 *
 * All are read at load time only (mode 0444); a bad value fails the load with -EINVAL.
 *
 * num_gpus: how many simulated GPUs, 1..32 (/dev/nvidia0..N-1).
 * fb_mib: framebuffer per GPU in MiB (default 16384, 16 GiB).
 * gpu_name: the name GPU_GET_NAME_STRING reports.
 * gpu_uuid: the UUID of GPU 0 ("GPU-" + 8-4-4-4-12 hex digits); GPU i has its last 12 hex digits
 *	plus i.
 * abi_version: the driver version whose ABI nvsim speaks and CHECK_VERSION_STR reports; any
 *	version kmod/nvrm knows (525..595), so qgpu's version keying is tested against several.
 */
static unsigned int num_gpus = 1;
module_param(num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Number of simulated GPUs, 1..32 (default 1)");

static unsigned int fb_mib = 16384;
module_param(fb_mib, uint, 0444);
MODULE_PARM_DESC(fb_mib, "Framebuffer per GPU in MiB (default 16384)");

static char *gpu_name = "NVIDIA H100 PCIe (nvsim)";
module_param(gpu_name, charp, 0444);
MODULE_PARM_DESC(gpu_name, "GPU name reported by GPU_GET_NAME_STRING");

static char *gpu_uuid = "GPU-6e767369-6d00-4000-8000-000000000000";
module_param(gpu_uuid, charp, 0444);
MODULE_PARM_DESC(gpu_uuid, "UUID of GPU 0; GPU i adds i to the last 12 hex digits");

static char *abi_version = "580.95.05";
module_param(abi_version, charp, 0444);
MODULE_PARM_DESC(abi_version, "NVIDIA driver version whose RM ABI nvsim speaks (default 580.95.05)");

int nvsim_numa_node = -1;
module_param_named(numa_node, nvsim_numa_node, int, 0444);
MODULE_PARM_DESC(numa_node,
		 "NUMA node of GPU 0's memory, as onlined on a coherent platform (Grace Hopper); GPU i is node numa_node + i. -1 (default): none, as on PCIe GPUs");

struct nvsim_gpu nvsim_gpus[NVSIM_MAX_GPUS];
unsigned int nvsim_num_gpus;
const char *nvsim_gpu_name;
struct nvrm_abi nvsim_abi;

static struct proc_dir_entry *nvsim_proc_root;
static struct class *nvsim_class;
static struct cdev nvsim_cdev;
static struct cdev nvsim_uvm_cdev;
static dev_t nvsim_uvm_devt;

static int nvsim_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	struct nvsim_file *nf;

	if (imajor(inode) == NVSIM_MAJOR && minor != NVSIM_CTL_MINOR && minor >= nvsim_num_gpus)
		return -ENODEV;
	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf)
		return -ENOMEM;
	if (imajor(inode) == NVSIM_MAJOR) {
		nf->is_ctl = minor == NVSIM_CTL_MINOR;
		if (!nf->is_ctl)
			nf->gpu = &nvsim_gpus[minor];
	}
	/*
	 * Each file gets its own address space, as nv_init_mapping_revocation() gives the real
	 * driver's files, so the mappings made through one file can be zapped without touching
	 * another's (the doorbell page is write-protected again this way after each ring).
	 */
	mutex_init(&nf->mmap_lock);
	nvsim_event_file_init(nf);
	address_space_init_once(&nf->mapping);
	nf->mapping.host = inode;
	nf->mapping.a_ops = inode->i_mapping->a_ops;
	file->f_mapping = &nf->mapping;
	file->private_data = nf;
	return 0;
}

static int nvsim_release(struct inode *inode, struct file *file)
{
	struct nvsim_file *nf = file->private_data;

	if (nf->is_ctl) {
		nvsim_rm_release_owner(file);
		nvsim_attach_release(nf);
	}
	nvsim_export_file_release(nf);
	nvsim_event_file_release(file);
	if (nf->ctl_file)
		fput(nf->ctl_file);
	nvsim_mmap_release_file(nf);
	kfree(nf);
	return 0;
}

const struct file_operations nvsim_fops = {
	.owner		= THIS_MODULE,
	.open		= nvsim_open,
	.release	= nvsim_release,
	.unlocked_ioctl	= nvsim_ioctl,
	.compat_ioctl	= nvsim_ioctl,
	.mmap		= nvsim_mmap,
	.poll		= nvsim_poll,
};

/* The GPU with @gpu_id (CARD_INFO's, as the driver's find_gpu_id() looks it up), or NULL. */
struct nvsim_gpu *nvsim_gpu_by_id(u32 gpu_id)
{
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++)
		if (nvsim_gpus[i].gpu_id == gpu_id)
			return &nvsim_gpus[i];
	return NULL;
}

/* The real nodes are world-usable (nvidia-modprobe creates them 0666); access control is RM's. */
static char *nvsim_devnode(NVSIM_DEVNODE_DEV *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

/* Identity of each GPU from the parameters: PCI-like ids and consecutive UUIDs. */
static int nvsim_setup_gpus(void)
{
	unsigned long long tail;
	unsigned int i;

	if (strlen(gpu_uuid) != NVSIM_UUID_LEN - 1 || strncmp(gpu_uuid, "GPU-", 4) ||
	    kstrtoull(gpu_uuid + NVSIM_UUID_LEN - 13, 16, &tail)) {
		pr_warn("gpu_uuid=%s is not GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n", gpu_uuid);
		return -EINVAL;
	}
	if (!fb_mib || strlen(gpu_name) >= NVSIM_NAME_LEN) {
		pr_warn("fb_mib must be > 0 and gpu_name shorter than %u\n", NVSIM_NAME_LEN);
		return -EINVAL;
	}
	for (i = 0; i < num_gpus; i++) {
		struct nvsim_gpu *gpu = &nvsim_gpus[i];

		gpu->index = i;
		gpu->gpu_id = (i + 1) << 8;	/* PCI bus i + 1, device 0 */
		gpu->fb_size = (u64)fb_mib << 20;
		gpu->fb_used = 0;
		gpu->dma_maps = 0;
		gpu->dma_mapped = 0;
		snprintf(gpu->uuid, sizeof(gpu->uuid), "%.*s%012llx", NVSIM_UUID_LEN - 13,
			 gpu_uuid, (tail + i) & 0xffffffffffffULL);
	}
	nvsim_num_gpus = num_gpus;
	nvsim_gpu_name = gpu_name;
	return 0;
}

/* Stop every GPU's engine and remove /proc/driver/nvsim; fine on any partial state. */
static void nvsim_destroy_gpus(void)
{
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++)
		nvsim_engine_exit(&nvsim_gpus[i]);
	proc_remove(nvsim_proc_root);
	nvsim_proc_root = NULL;
}

/*
 * /proc/driver/nvsim/gpu<N>/ per GPU (files in them belong to the parts of nvsim that fill them),
 * and each GPU's engine.
 */
static int nvsim_create_gpus(void)
{
	unsigned int i;
	int ret;

	nvsim_proc_root = proc_mkdir("driver/nvsim", NULL);
	if (!nvsim_proc_root)
		return -ENOMEM;
	ret = nvsim_event_proc_init(nvsim_proc_root);
	if (ret)
		goto err;
	for (i = 0; i < nvsim_num_gpus; i++) {
		char name[16];

		snprintf(name, sizeof(name), "gpu%u", i);
		nvsim_gpus[i].proc = proc_mkdir(name, nvsim_proc_root);
		if (!nvsim_gpus[i].proc) {
			ret = -ENOMEM;
			goto err;
		}
		ret = nvsim_attach_proc_init(&nvsim_gpus[i]);
		if (ret)
			goto err;
		ret = nvsim_dmamap_proc_init(&nvsim_gpus[i]);
		if (ret)
			goto err;
		ret = nvsim_engine_init(&nvsim_gpus[i]);
		if (ret)
			goto err;
	}
	return 0;
err:
	nvsim_destroy_gpus();
	return ret;
}

static void nvsim_destroy_nodes(void)
{
	unsigned int i;

	device_destroy(nvsim_class, nvsim_uvm_devt);
	device_destroy(nvsim_class, MKDEV(NVSIM_MAJOR, NVSIM_CTL_MINOR));
	for (i = 0; i < nvsim_num_gpus; i++)
		device_destroy(nvsim_class, MKDEV(NVSIM_MAJOR, i));
}

/*
 * Destroying a node that was never created is a no-op, so one teardown serves every partial
 * state.
 */
static int nvsim_create_nodes(void)
{
	struct device *dev;
	unsigned int i;

	for (i = 0; i < num_gpus; i++) {
		dev = device_create(nvsim_class, NULL, MKDEV(NVSIM_MAJOR, i), NULL, "nvidia%u", i);
		if (IS_ERR(dev))
			goto err;
	}
	dev = device_create(nvsim_class, NULL, MKDEV(NVSIM_MAJOR, NVSIM_CTL_MINOR), NULL,
			    "nvidiactl");
	if (IS_ERR(dev))
		goto err;
	dev = device_create(nvsim_class, NULL, nvsim_uvm_devt, NULL, "nvidia-uvm");
	if (IS_ERR(dev))
		goto err;
	return 0;
err:
	nvsim_destroy_nodes();
	return PTR_ERR(dev);
}

static int __init nvsim_init(void)
{
	int ret;

	if (num_gpus < 1 || num_gpus > NVSIM_MAX_GPUS) {
		pr_warn("num_gpus=%u is out of range 1..%u\n", num_gpus, NVSIM_MAX_GPUS);
		return -EINVAL;
	}
	ret = nvrm_abi_init(&nvsim_abi, abi_version);
	if (ret) {
		pr_warn("abi_version=%s is not a driver version nvsim can speak (%d)\n",
			abi_version, ret);
		return -EINVAL;
	}
	ret = nvsim_setup_gpus();
	if (ret)
		return ret;

	ret = nvsim_create_gpus();
	if (ret) {
		pr_warn("starting the engines failed (%d)\n", ret);
		return ret;
	}

	ret = register_chrdev_region(MKDEV(NVSIM_MAJOR, 0), NVSIM_CTL_MINOR + 1, "nvidia-frontend");
	if (ret) {
		pr_warn("registering major %d failed (%d)\n", NVSIM_MAJOR, ret);
		goto err_destroy_gpus;
	}
	cdev_init(&nvsim_cdev, &nvsim_fops);
	ret = cdev_add(&nvsim_cdev, MKDEV(NVSIM_MAJOR, 0), NVSIM_CTL_MINOR + 1);
	if (ret) {
		pr_warn("cdev_add failed (%d)\n", ret);
		goto err_unregister_region;
	}

	ret = alloc_chrdev_region(&nvsim_uvm_devt, 0, 1, "nvidia-uvm");
	if (ret) {
		pr_warn("registering nvidia-uvm failed (%d)\n", ret);
		goto err_del_cdev;
	}
	cdev_init(&nvsim_uvm_cdev, &nvsim_uvm_fops);
	ret = cdev_add(&nvsim_uvm_cdev, nvsim_uvm_devt, 1);
	if (ret) {
		pr_warn("cdev_add of nvidia-uvm failed (%d)\n", ret);
		goto err_unregister_uvm;
	}

	nvsim_class = nvsim_class_create("nvsim");
	if (IS_ERR(nvsim_class)) {
		ret = PTR_ERR(nvsim_class);
		pr_warn("class_create failed (%d)\n", ret);
		goto err_del_uvm_cdev;
	}
	nvsim_class->devnode = nvsim_devnode;
	ret = nvsim_create_nodes();
	if (ret) {
		pr_warn("creating device nodes failed (%d)\n", ret);
		goto err_destroy_class;
	}
	pr_info("%u simulated GPU(s), %u MiB each, driver ABI %s\n", num_gpus, fb_mib,
		nvsim_abi.version);
	return 0;

err_destroy_class:
	class_destroy(nvsim_class);
err_del_uvm_cdev:
	cdev_del(&nvsim_uvm_cdev);
err_unregister_uvm:
	unregister_chrdev_region(nvsim_uvm_devt, 1);
err_del_cdev:
	cdev_del(&nvsim_cdev);
err_unregister_region:
	unregister_chrdev_region(MKDEV(NVSIM_MAJOR, 0), NVSIM_CTL_MINOR + 1);
err_destroy_gpus:
	nvsim_destroy_gpus();
	return ret;
}

/* ORDER: the reverse of nvsim_init(). */
static void __exit nvsim_exit(void)
{
	nvsim_destroy_nodes();
	class_destroy(nvsim_class);
	cdev_del(&nvsim_uvm_cdev);
	unregister_chrdev_region(nvsim_uvm_devt, 1);
	cdev_del(&nvsim_cdev);
	unregister_chrdev_region(MKDEV(NVSIM_MAJOR, 0), NVSIM_CTL_MINOR + 1);
	nvsim_doorbell_exit();
	nvsim_kapi_exit();
	nvsim_rm_exit();
	nvsim_registry_exit();
	nvsim_destroy_gpus();
}

module_init(nvsim_init);
module_exit(nvsim_exit);

MODULE_DESCRIPTION("nvsim: a simulated NVIDIA driver for testing qgpu");
MODULE_LICENSE("GPL");
