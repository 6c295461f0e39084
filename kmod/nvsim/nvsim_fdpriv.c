// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: nv_get_file_private(), where RM turns an fd number in a call's parameters into one of
 * the driver's open files.
 *
 * The real driver resolves every fd an RM escape carries here: REGISTER_FD's ctl fd, the device
 * fd of RM_MAP_MEMORY and RM_ALLOC_MEMORY, and the fd of the OS_UNIX export and import controls
 * (kernel-open/nvidia/nv.c; callers in src/nvidia/arch/nvalloc/unix/src/escape.c and os.c,
 * 525-595). It looks the number up in the calling process's fd table (fget()), checks the file
 * is one of its nodes (major 195; the control node's minor when @ctl, a GPU's otherwise), and
 * returns the file's private data, whose first member is the nv_file_private_t RM works with,
 * with the file itself in *@os_private and a reference (nv_put_file_private() drops it; nvsim's
 * callers fput() the file).
 *
 * nvsim keeps that boundary, with the same names and arguments, in a file of its own so that the
 * compiler can neither inline nor clone it: what instruments the real function (qgpu's lent
 * files, DOC: fd translation in kmod/qgpu_fdxlate.c) reaches nvsim's the same way. nvsim's
 * callers go through nvsim_get_nvidia_file(), which checks the answer again.
 */
#include <linux/file.h>
#include <linux/fs.h>

#include "nvsim_internal.h"

/* The checks nv_get_file_private() makes of the file an fd number names. */
static bool nvsim_file_is(struct file *f, bool ctl)
{
	struct inode *inode = file_inode(f);
	struct nvsim_file *nf;

	if (!S_ISCHR(inode->i_mode) || imajor(inode) != NVSIM_MAJOR || f->f_op != &nvsim_fops)
		return false;
	nf = f->private_data;
	return ctl == nf->is_ctl && (ctl || nf->gpu);
}

/**
 * nv_get_file_private() - the driver's file behind an fd number of the caller
 * @fd: the number, in the calling process's fd table
 * @ctl: want the control node (nvidiactl); otherwise a GPU's node
 * @os_private: set to the file (with a reference) on success
 *
 * nvsim also checks the file's f_op, so that it never reads another driver's private data (the
 * real driver checks the device number only).
 *
 * Context: process context.
 * Return: the file's private data (struct nvsim_file), or NULL.
 */
noinline void *nv_get_file_private(int fd, bool ctl, void **os_private)
{
	struct file *f = fget(fd);

	if (!f)
		return NULL;
	if (!nvsim_file_is(f, ctl)) {
		fput(f);
		return NULL;
	}
	*os_private = f;
	return f->private_data;
}

/**
 * nvsim_get_nvidia_file() - an fd argument of an RM call, resolved as RM resolves it
 * @fd: the number, in the calling process's fd table
 * @ctl: want the control node; otherwise a GPU's node
 *
 * Through nv_get_file_private(). What that function finds itself passed its checks; a file that
 * did not was put in by something instrumenting it (qgpu's lent files, DOC: fd translation in
 * kmod/qgpu_fdxlate.c). The real driver would read such a file's private data as its own; nvsim
 * warns and refuses it.
 *
 * Context: process context.
 * Return: the file, with a reference, or NULL.
 */
struct file *nvsim_get_nvidia_file(int fd, bool ctl)
{
	void *f = NULL;

	if (!nv_get_file_private(fd, ctl, &f))
		return NULL;
	if (WARN(!nvsim_file_is(f, ctl),
		 "nvsim: nv_get_file_private(%d) answered with a file that is no %s node of nvsim's\n",
		 fd, ctl ? "control" : "GPU")) {
		fput(f);
		return NULL;
	}
	return f;
}
