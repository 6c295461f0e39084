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
 *     NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE. Everyone else needs DUP_OBJECT access
 *     (NV_ERR_INSUFFICIENT_PERMISSIONS otherwise), granted by the source object's share policy
 *     list (_rsAccessGetSharedRights(), rs_access_map.c): its own list once RM_SHARE set one,
 *     else the default (serverInitGlobalSharePolicies(), sharing.c: RS_SHARE_TYPE_PID, which
 *     cliresShareCallback grants when the source client belongs to the same process as the
 *     destination client, or, for a kernel destination, to the calling process). A policy that
 *     matches the destination client grants its rights; a REQUIRE policy that does not match
 *     denies them. ALL matches everyone, CLIENT its target client, PID as above; the other
 *     types match no one in nvsim (no security tokens, partitions, fabric manager). A client
 *     always has its own objects' rights;
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
	case NVRM_CLASS_NV_MEMORY_FABRIC:
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

/* Distinct policies one object's list may hold (RM's list has no bound but memory). */
#define NVSIM_SHARE_MAX	16

/**
 * struct nvsim_share - one share policy (RS_SHARE_POLICY, DUP_OBJECT access only)
 * @target: the client a CLIENT policy names
 * @type: RS_SHARE_TYPE_*
 * @require: a REQUIRE policy: denies its rights to whoever it does not match
 */
struct nvsim_share {
	u32 target;
	u16 type;
	bool require;
};

/**
 * struct nvsim_share_list - an object's own share policy list (RsResourceRef.sharePolicyList)
 * @n: policies in @share
 * @share: the policies, each granting (or requiring for) DUP_OBJECT
 */
struct nvsim_share_list {
	unsigned int n;
	struct nvsim_share share[NVSIM_SHARE_MAX];
};

/* The default list's one policy: RS_SHARE_TYPE_PID grants DUP_OBJECT. */
static const struct nvsim_share nvsim_share_default = { .type = NVRM_RS_SHARE_TYPE_PID };

/* resShareCallback()/cliresShareCallback(): does @sh match @dst duplicating from @src? */
static bool nvsim_share_matches(const struct nvsim_share *sh, const struct nvsim_client *src,
				const struct nvsim_client *dst)
{
	switch (sh->type) {
	case NVRM_RS_SHARE_TYPE_ALL:
		return true;
	case NVRM_RS_SHARE_TYPE_CLIENT:
		return sh->target == dst->root.handle;
	case NVRM_RS_SHARE_TYPE_PID:
		if (src->kernel)
			return false;	/* kernel clients have no process to share with */
		if (dst->kernel)
			return src->tgid == task_tgid_nr(current);
		return src->tgid == dst->tgid;
	default:
		return false;
	}
}

/* DUP_OBJECT access to @obj (of client @src) for client @dst. */
static bool nvsim_dup_allowed(const struct nvsim_caller *caller, const struct nvsim_object *obj,
			      const struct nvsim_client *src, const struct nvsim_client *dst,
			      u32 flags)
{
	const struct nvsim_share *list = &nvsim_share_default;
	unsigned int i, n = 1;
	bool granted = false;

	if (caller->kernel && !(flags & NVRM_DUP_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE))
		return true;
	if (src == dst)
		return true;
	if (obj->shares) {
		list = obj->shares->share;
		n = obj->shares->n;
	}
	for (i = 0; i < n; i++) {
		bool match = nvsim_share_matches(&list[i], src, dst);

		if (list[i].require && !match)
			return false;
		granted |= !list[i].require && match;
	}
	return granted;
}

/* rsShareListInsert()/rsShareListRemove() of one DUP_OBJECT policy. */
static u32 nvsim_share_list_apply(struct nvsim_share_list *l, const struct nvsim_share *sh,
				  bool revoke)
{
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		const struct nvsim_share *e = &l->share[i];

		if (e->type == sh->type && e->require == sh->require &&
		    (sh->type != NVRM_RS_SHARE_TYPE_CLIENT || e->target == sh->target))
			break;
	}
	if (revoke) {
		if (i < l->n)
			l->share[i] = l->share[--l->n];
		return NVRM_OK;
	}
	if (i < l->n)
		return NVRM_OK;	/* already there: the masks' union is the same DUP_OBJECT */
	if (l->n == NVSIM_SHARE_MAX)
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	l->share[l->n++] = *sh;
	return NVRM_OK;
}

/*
 * clientShareResource(): the first change gives @obj a list of its own (the default's policy
 * copied in with COMPOSE); without COMPOSE the list is cleared first, so the policy replaces it.
 */
static u32 nvsim_share_object(struct nvsim_object *obj, const struct nvrm_nvos57 *p)
{
	struct nvsim_share sh = {
		.target = p->share_target,
		.type = p->share_type,
		.require = p->share_action & NVRM_RS_SHARE_ACTION_REQUIRE,
	};
	struct nvsim_share_list *l = obj->shares;

	if (!l) {
		l = kzalloc(sizeof(*l), GFP_KERNEL);
		if (!l)
			return NVRM_ERR_NO_MEMORY;
		if (p->share_action & NVRM_RS_SHARE_ACTION_COMPOSE)
			l->share[l->n++] = nvsim_share_default;
		obj->shares = l;
	}
	if (!(p->share_action & NVRM_RS_SHARE_ACTION_COMPOSE))
		l->n = 0;
	if (!(p->share_access_mask & NVRM_RS_ACCESS_DUP_OBJECT))
		return NVRM_OK;	/* a policy with no rights grants, denies and revokes nothing */
	return nvsim_share_list_apply(l, &sh, p->share_action & NVRM_RS_SHARE_ACTION_REVOKE);
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
	if (!nvsim_dup_allowed(caller, src_obj, src, dst, p->flags)) {
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
 * makes the same checks, then changes the object's share policy list for DUP_OBJECT (the rule
 * above), as CUDA's IPC does: on an H200 with driver 580.159.04, cudaIpcGetMemHandle shared the
 * memory with RS_SHARE_TYPE_ALL, DUP_OBJECT and action 0, and cudaIpcOpenMemHandle in another
 * process duplicated it from the exporter's client (session 21). What nvsim does not simulate
 * answers NV_ERR_NOT_SUPPORTED: a mask with rights other than DUP_OBJECT, and a CLIENT share
 * whose target is the owner itself (which changes the owner's own rights).
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
	if (status == NVRM_OK) {
		struct nvsim_object *obj = nvsim_object_lookup(client, p->hobject);

		if (!obj)
			status = NVRM_ERR_OBJECT_NOT_FOUND;
		else if ((p->share_access_mask & ~NVRM_RS_ACCESS_DUP_OBJECT) ||
			 (p->share_type == NVRM_RS_SHARE_TYPE_CLIENT &&
			  p->share_target == p->hclient))
			status = NVRM_ERR_NOT_SUPPORTED;
		else
			status = nvsim_share_object(obj, p);
	}
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
