// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: RM_DUP_OBJECT, a second handle to an existing object.
 *
 * The order of checks and the status of each follow resserv's serverCopyResource() and
 * clientCopyResource() (rs_server.c, rs_client.c, 525-595):
 *   - both clients must exist (NV_ERR_INVALID_OBJECT_HANDLE, from the dual client lock);
 *   - the destination client must be the caller's (clientValidate: NV_ERR_INVALID_CLIENT);
 *   - the source object and the destination parent must exist (NV_ERR_OBJECT_NOT_FOUND);
 *   - the source class must be copyable (resCanCopy, NV_ERR_INVALID_ARGUMENT): memory, channel
 *     groups, context shares, VA spaces and usermode are; devices, subdevices, channels, engine
 *     objects, events and clients are not;
 *   - the new handle must be free (NV_ERR_INSERT_DUPLICATE_NAME; 0 generates one);
 *   - access: kernel-privileged callers may dup anything unless they pass
 *     NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE. Everyone else needs DUP_OBJECT access,
 *     which under the default share policy (serverInitGlobalSharePolicies: RS_SHARE_TYPE_PID,
 *     checked by cliresShareCallback) is granted when the source client belongs to the same
 *     process as the destination client, or, for a kernel destination, to the calling process.
 *     Nobody changes the policy in nvsim (no RM_SHARE), so that is the whole rule
 *     (NV_ERR_INSUFFICIENT_PERMISSIONS otherwise);
 *   - the destination parent must be a valid parent of the class (NV_ERR_INVALID_OBJECT_PARENT).
 *
 * The new handle refers to the same resource (one more reference); memory dups add no framebuffer
 * charge, which is returned when the last handle goes. Objects of copyable classes that have no
 * resource in nvsim become a handle of the same class on the parent's GPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/slab.h>

#include "nvsim_internal.h"

/* resCanCopy() of the class's resource (the *CanCopy_IMPL overrides, 525-595). */
bool nvsim_class_can_copy(u32 hclass)
{
	switch (hclass) {
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
	case NVRM_CLASS_NV50_MEMORY_VIRTUAL:
	case NVRM_CLASS_KEPLER_CHANNEL_GROUP_A:
	case NVRM_CLASS_FERMI_CONTEXT_SHARE_A:
	case NVRM_CLASS_FERMI_VASPACE_A:
	case NVRM_CLASS_VOLTA_USERMODE_A:
	case NVRM_CLASS_TURING_USERMODE_A:
	case NVRM_CLASS_AMPERE_USERMODE_A:
	case NVRM_CLASS_HOPPER_USERMODE_A:
		return true;
	default:
		return false;
	}
}

/**
 * nvsim_object_new_ref() - a new handle for an existing object: a duplicate, or an import
 * @client: the client it goes into
 * @parent: its parent there (checked by the caller)
 * @hclass: the existing object's class
 * @res: the existing object's resource, which the new handle refers to too; or NULL
 * @handle: the handle to use, 0 to generate one; set to the new handle
 *
 * Context: nvsim_rm_lock held.
 * Return: an RM status; nothing is made unless it is NVRM_OK.
 */
u32 nvsim_object_new_ref(struct nvsim_client *client, struct nvsim_object *parent, u32 hclass,
			 struct nvsim_res *res, u32 *handle)
{
	struct nvsim_object *obj;
	u32 status;

	status = nvsim_object_new(client, parent, hclass, handle, &obj);
	if (status)
		return status;
	if (res) {
		kref_get(&res->ref);
		obj->res = res;
	}
	status = nvsim_object_link(obj);
	if (status) {
		if (obj->res)
			nvsim_res_put(obj->res);
		kfree(obj);
	}
	return status;
}

/* The default DUP_OBJECT share policy (RS_SHARE_TYPE_PID). */
static bool nvsim_dup_allowed(const struct nvsim_caller *caller, const struct nvsim_client *src,
			      const struct nvsim_client *dst, u32 flags)
{
	if (caller->kernel && !(flags & NVRM_DUP_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE))
		return true;
	if (src->kernel)
		return false;	/* kernel clients have no process to share with */
	if (dst->kernel)
		return src->tgid == task_tgid_nr(current);
	return src->tgid == dst->tgid;
}

/**
 * nvsim_rm_dup_call() - RM_DUP_OBJECT for a user or kernel caller
 * @caller: the call
 * @p: NVOS55; hObject is updated with the new handle on success (status is not written)
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_rm_dup_call(const struct nvsim_caller *caller, struct nvrm_nvos55 *p)
{
	struct nvsim_object *src_obj, *parent;
	struct nvsim_client *src, *dst;
	u32 handle = p->hobject;
	u32 status;

	mutex_lock(&nvsim_rm_lock);
	src = nvsim_client_lookup(p->hclient_src);
	dst = nvsim_client_lookup(p->hclient);
	if (!src || !dst) {
		status = NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	status = nvsim_client_get(caller, p->hclient, &dst);
	if (status)
		goto out_unlock;
	src_obj = nvsim_object_lookup(src, p->hobject_src);
	parent = nvsim_object_lookup(dst, p->hparent);
	if (!src_obj || !parent) {
		status = NVRM_ERR_OBJECT_NOT_FOUND;
		goto out_unlock;
	}
	if (!nvsim_class_can_copy(src_obj->hclass)) {
		status = NVRM_ERR_INVALID_ARGUMENT;
		goto out_unlock;
	}
	if (handle && nvsim_object_lookup(dst, handle)) {
		status = NVRM_ERR_INSERT_DUPLICATE_NAME;
		goto out_unlock;
	}
	if (!nvsim_dup_allowed(caller, src, dst, p->flags)) {
		status = NVRM_ERR_INSUFFICIENT_PERMISSIONS;
		goto out_unlock;
	}
	status = nvsim_check_parent(src_obj->hclass, parent);
	if (status)
		goto out_unlock;
	status = nvsim_object_new_ref(dst, parent, src_obj->hclass, src_obj->res, &handle);
	if (!status)
		p->hobject = handle;
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/**
 * nvsim_rm_share() - NV_ESC_RM_SHARE (NVOS57): RM's checks, then not simulated
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS57; status is written back
 * @size: must be sizeof(NVOS57)
 *
 * RM checks the client a share is issued on against the calling file (clientValidate() in
 * serverShareResourceAccess()), except for RS_SHARE_TYPE_CLIENT, whose owner and target clients
 * it only looks up by handle (_serverShareResourceAccessClient(), rs_server.c, 525-595). nvsim
 * makes the same checks, then answers NV_ERR_NOT_SUPPORTED where RM would change the object's
 * share policy: policies are not simulated (see the rule above).
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_share(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_nvos57 *p = params;
	struct nvsim_client *client = NULL;
	u32 status;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	if (p->share_type >= NVRM_RS_SHARE_TYPE_MAX) {
		p->status = NVRM_ERR_INVALID_ARGUMENT;
		return 0;
	}
	mutex_lock(&nvsim_rm_lock);
	if (p->share_type == NVRM_RS_SHARE_TYPE_CLIENT) {
		client = nvsim_client_lookup(p->hclient);
		status = client && nvsim_client_lookup(p->share_target) ? NVRM_OK :
			 NVRM_ERR_INVALID_CLIENT;
	} else {
		status = nvsim_client_get(&caller, p->hclient, &client);
	}
	if (status == NVRM_OK)
		status = nvsim_object_lookup(client, p->hobject) ? NVRM_ERR_NOT_SUPPORTED :
			 NVRM_ERR_OBJECT_NOT_FOUND;
	mutex_unlock(&nvsim_rm_lock);
	p->status = status;
	return 0;
}

/**
 * nvsim_rm_dup() - NV_ESC_RM_DUP_OBJECT (NVOS55)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS55; hObject and status are written back
 * @size: must be sizeof(NVOS55)
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_dup(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_nvos55 *p = params;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	p->status = nvsim_rm_dup_call(&caller, p);
	return 0;
}
