// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: a simulated NVIDIA kernel driver.
 *
 * No machine the project is tested on has an NVIDIA GPU, so nvsim stands in for the NVIDIA driver
 * in every test, benchmark and the demo. It creates the device nodes the real driver's users
 * expect: /dev/nvidiactl (195:255), /dev/nvidia0..N-1 (195:N) and /dev/nvidia-uvm (dynamic
 * major).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "nvsim_compat.h"

/* The NVIDIA character-device numbers (kernel-open/common/inc/nv.h, 525-595). */
#define NVSIM_MAJOR		195
#define NVSIM_CTL_MINOR		255
#define NVSIM_MAX_GPUS		32

/**
 * DOC: module parameters
 *
 * num_gpus: how many simulated GPUs, 1..32 (/dev/nvidia0..N-1). Read at load time only.
 */
static unsigned int num_gpus = 1;
module_param(num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Number of simulated GPUs, 1..32 (default 1)");

static struct class *nvsim_class;
static struct cdev nvsim_cdev;
static struct cdev nvsim_uvm_cdev;
static dev_t nvsim_uvm_devt;

static int nvsim_open(struct inode *inode, struct file *file)
{
	return 0;
}

static int nvsim_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations nvsim_fops = {
	.owner		= THIS_MODULE,
	.open		= nvsim_open,
	.release	= nvsim_release,
};

static const struct file_operations nvsim_uvm_fops = {
	.owner		= THIS_MODULE,
	.open		= nvsim_open,
	.release	= nvsim_release,
};

static void nvsim_destroy_nodes(void)
{
	unsigned int i;

	device_destroy(nvsim_class, nvsim_uvm_devt);
	device_destroy(nvsim_class, MKDEV(NVSIM_MAJOR, NVSIM_CTL_MINOR));
	for (i = 0; i < num_gpus; i++)
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

	ret = register_chrdev_region(MKDEV(NVSIM_MAJOR, 0), NVSIM_CTL_MINOR + 1, "nvidia-frontend");
	if (ret) {
		pr_warn("registering major %d failed (%d)\n", NVSIM_MAJOR, ret);
		return ret;
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
	ret = nvsim_create_nodes();
	if (ret) {
		pr_warn("creating device nodes failed (%d)\n", ret);
		goto err_destroy_class;
	}
	pr_info("%u simulated GPU(s)\n", num_gpus);
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
}

module_init(nvsim_init);
module_exit(nvsim_exit);

MODULE_DESCRIPTION("nvsim: a simulated NVIDIA driver for testing qgpu");
MODULE_LICENSE("GPL");
