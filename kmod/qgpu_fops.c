// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the file operations of instance nodes, forwarding 1:1 to a real backend file.
 *
 * Each open of an instance node opens its own backend file with the caller's flags, in the
 * caller's context (so the driver sees the caller as current, with its credentials), and keeps
 * it for exactly the proxy's lifetime: RM clients are bound to the ctl file that created them,
 * mmap contexts and OS events to the file they were set up on, so sharing a backend file between
 * opens would mix tenants' state. The proxy's release drops the backend file, so whatever the
 * driver holds for it goes when the process closes the node or dies.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "qgpu_compat.h"
#include "qgpu_internal.h"
#include "qgpu_rmtrack.h"
#include "qgpu_sched.h"

const struct file_operations *qgpu_backend_fops[QGPU_NODES];

/**
 * qgpu_open_backend() - open the backend node an instance node stands for
 * @node: which node
 * @gpu: the instance's GPU (for QGPU_NODE_GPU; may be NULL for the others)
 * @flags: open flags
 *
 * The name is looked up under the backend directory resolved at load (DOC: module parameters),
 * never in the caller's mount namespace, with the caller's credentials for the permission check.
 *
 * Return: the backend file, or an ERR_PTR: the open's error, or -ELOOP if the node turns out
 * to be a qgpu node itself.
 */
struct file *qgpu_open_backend(enum qgpu_node node, const struct qgpu_gpu *gpu, int flags)
{
	char name[sizeof("nvidia") + 10];
	struct file *real;

	if (!qgpu_have_backend)
		return ERR_PTR(-ENODEV);
	if (node == QGPU_NODE_GPU)
		snprintf(name, sizeof(name), "nvidia%u", gpu->index);
	else
		strscpy(name, qgpu_node_name(node), sizeof(name));
	real = file_open_root(&qgpu_backend_path, name, flags, 0);
	if (IS_ERR(real))
		return real;
	if (imajor(file_inode(real)) == MAJOR(qgpu_devt)) {
		fput(real);
		return ERR_PTR(-ELOOP);
	}
	return real;
}

static struct qgpu_file *qgpu_file(struct file *file)
{
	return file->private_data;
}

/*
 * The backend file of a proxy, or -ENODEV once its instance was removed by force (the proxy
 * itself stays valid until closed; the state is read locklessly, a call racing with the removal
 * may still go through).
 */
static struct file *qgpu_real_file(struct file *file)
{
	struct qgpu_file *qf = qgpu_file(file);

	if (READ_ONCE(qf->inst->state) == QGPU_INST_REMOVED)
		return ERR_PTR(-ENODEV);
	return qf->real;
}

static int qgpu_fop_open(struct inode *inode, struct file *file)
{
	struct qgpu_instance *inst;
	struct qgpu_file *qf;
	enum qgpu_node node;
	int flags, ret;

	inst = qgpu_instance_open(iminor(inode), &node);
	if (!inst)
		return -ENODEV;
	qf = kzalloc(sizeof(*qf), GFP_KERNEL_ACCOUNT);
	if (!qf) {
		ret = -ENOMEM;
		goto err_close;
	}
	/* The caller's flags, O_NONBLOCK included; creation flags mean nothing for a device. */
	flags = file->f_flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	qf->real = qgpu_open_backend(node, inst->gpu, flags);
	if (IS_ERR(qf->real)) {
		ret = PTR_ERR(qf->real);
		goto err_free;
	}
	/* RM objects of a ctl file, UVM holds of a VA-space file: as long as the real file lives */
	if (node == QGPU_NODE_CTL || node == QGPU_NODE_UVM) {
		qf->track = qgpu_rmtrack_new(inst);
		if (!qf->track) {
			ret = -ENOMEM;
			goto err_put_real;
		}
	}
	qf->inst = inst;
	qf->node = node;
	qf->tgid = task_tgid_nr(current);
	get_task_comm(qf->comm, current);
	file->private_data = qf;
	qgpu_instance_attach_file(inst, qf);
	return 0;

err_put_real:
	fput(qf->real);
err_free:
	kfree(qf);
err_close:
	qgpu_instance_close(inst, NULL);
	return ret;
}

static int qgpu_fop_release(struct inode *inode, struct file *file)
{
	struct qgpu_file *qf = qgpu_file(file);

	/* The tracker takes the real file: RM's clients and OS events live as long as it does. */
	if (qf->track)
		qgpu_rmtrack_release(qf->track, qf->real);
	else if (qf->events_track)
		qgpu_rmtrack_release(qf->events_track, qf->real);
	else
		fput(qf->real);
	if (qf->ctl_proxy)
		fput(qf->ctl_proxy);
	qgpu_rmtrack_kick();
	qgpu_instance_close(qf->inst, qf);
	kfree(qf);
	return 0;
}

static long qgpu_fop_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (IS_ERR(qgpu_real_file(file)))
		return -ENODEV;
	if (qgpu_file(file)->node == QGPU_NODE_UVM)
		return qgpu_uvm_ioctl(file, cmd, arg, false);
	return qgpu_escape_ioctl(file, cmd, arg, false);
}

#ifdef CONFIG_COMPAT
/*
 * The NVIDIA parameter structs hold user pointers as 64-bit NvP64 in every ABI, so a 32-bit
 * caller's parameters decode the same way; only the ioctl argument itself is a compat pointer.
 */
static long qgpu_fop_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (IS_ERR(qgpu_real_file(file)))
		return -ENODEV;
	arg = (unsigned long)compat_ptr(arg);
	if (qgpu_file(file)->node == QGPU_NODE_UVM)
		return qgpu_uvm_ioctl(file, cmd, arg, true);
	return qgpu_escape_ioctl(file, cmd, arg, true);
}
#endif

/*
 * The real file takes the VMA: the driver's vm_ops find their state through vma->vm_file, and
 * its mapping revocation (unmap_mapping_range on the real file's mapping) must see the VMA.
 * vma_set_file() moves the VMA's file reference from the proxy to the real file; if the
 * driver's mmap fails, the caller drops the VMA's file, now the real one.
 */
static int qgpu_fop_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct file *real = qgpu_real_file(file);
	void *doorbell;
	int ret;

	if (IS_ERR(real))
		return PTR_ERR(real);
	ret = qgpu_mem_uvm_mmap(file->private_data, vma);
	if (ret)
		return ret;
	if (!real->f_op->mmap)
		return -ENODEV;
	if (WARN_ON(file != vma->vm_file))
		return -EIO;
	/* A doorbell mapping gets the scheduler's gate (qgpu_vma.c). */
	doorbell = qgpu_vma_prepare(qgpu_file(file));
	if (IS_ERR(doorbell))
		return PTR_ERR(doorbell);
	vma_set_file(vma, real);
	ret = qgpu_call_mmap(real, vma);
	qgpu_vma_wrap(doorbell, vma, ret);
	return ret;
}

/*
 * The NVIDIA driver's poll only waits when its file is blocking (nvidia_poll), so the proxy's
 * O_NONBLOCK (which fcntl(F_SETFL) changes on the proxy alone) is mirrored first.
 */
static void qgpu_sync_nonblock(struct file *file, struct file *real)
{
	unsigned int nb = READ_ONCE(file->f_flags) & O_NONBLOCK;

	if ((READ_ONCE(real->f_flags) & O_NONBLOCK) == nb)
		return;
	spin_lock(&real->f_lock);
	real->f_flags = (real->f_flags & ~O_NONBLOCK) | nb;
	spin_unlock(&real->f_lock);
}

static __poll_t qgpu_fop_poll(struct file *file, struct poll_table_struct *pt)
{
	struct file *real = qgpu_real_file(file);

	if (IS_ERR(real))
		return EPOLLERR;
	qgpu_sync_nonblock(file, real);
	return vfs_poll(real, pt);
}

static ssize_t qgpu_fop_read(struct file *file, char __user *buf, size_t len, loff_t *pos)
{
	struct file *real = qgpu_real_file(file);

	if (IS_ERR(real))
		return PTR_ERR(real);
	if (!real->f_op->read)
		return -EINVAL;
	qgpu_sync_nonblock(file, real);
	return real->f_op->read(real, buf, len, pos);
}

static ssize_t qgpu_fop_write(struct file *file, const char __user *buf, size_t len,
			      loff_t *pos)
{
	struct file *real = qgpu_real_file(file);

	if (IS_ERR(real))
		return PTR_ERR(real);
	if (!real->f_op->write)
		return -EINVAL;
	qgpu_sync_nonblock(file, real);
	return real->f_op->write(real, buf, len, pos);
}

static loff_t qgpu_fop_llseek(struct file *file, loff_t offset, int whence)
{
	struct file *real = qgpu_real_file(file);

	if (IS_ERR(real))
		return PTR_ERR(real);
	return vfs_llseek(real, offset, whence);
}

const struct file_operations qgpu_fops = {
	.owner		= THIS_MODULE,
	.open		= qgpu_fop_open,
	.release	= qgpu_fop_release,
	.unlocked_ioctl	= qgpu_fop_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= qgpu_fop_compat_ioctl,
#endif
	.mmap		= qgpu_fop_mmap,
	.poll		= qgpu_fop_poll,
	.read		= qgpu_fop_read,
	.write		= qgpu_fop_write,
	.llseek		= qgpu_fop_llseek,
};
