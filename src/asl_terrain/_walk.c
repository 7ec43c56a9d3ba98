/* asl_terrain._walk: the optional compiled walk of a LOS thread (issue 13).

   walk() is los._walk, contact by contact in the same order, for a compiled thread shape (its contacts'
   tuple, and the same packed as "iiiidd" structs: kind, first and second hex offset, t0, t1; los._packed).
   It decides nothing itself: the rules stay Python functions, called as los._walk
   calls them, with the same arguments (the contact's own t objects); what it does in C is the walking
   between them: the contacts that meet nothing (an end's own hex, a hex whose record is no higher than the
   lower end, a hexside or vertex with no wall near it) and the records' look-ups (the whole-hex table; on
   artwork, a hex's record by the codes of the pixels under the thread). A record not yet derived is asked of
   the Python reader, as los._walk asks it. Without this module los._walk walks every thread. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

/* los.Contact's values */
enum { SPAN = 0, ALONG = 1, TOUCH = 2, CROSS = 3, VERTEX = 4, PASS = 5 };

typedef struct {
    int kind;
    int off;
    int off2;
    int pad;
    double t0;
    double t1;
} contact;

static PyObject *s_quick, *s_hindrances, *s_obstacles, *s_kind, *s_top, *s_drm, *s_hinds, *s_dep, *s_static,
    *s_cache, *s_sampled, *s_codes, *s_ids, *s_offs, *s_n, *s_raster, *s_sets, *s_interior, *s_boundary, *s_shift,
    *s_raster_attr, *s_turned, *s_starts, *s_p, *s_q, *s_set_of, *s_record, *s_static_fn, *s_height, *s_flat;

#define MAX_STRETCH 4096

/* The pixels under one thread: its ThreadSample's buffers, read when the first stretch is. */
typedef struct {
    int ready;      /* 0: not yet read; 1: read; -1: the Python reader reads this thread's pixels */
    Py_buffer ids;
    Py_buffer offs; /* each sample's offset, unless computed */
    int computed;   /* the offsets worked out as ArtworkRaster.sample does, from the pixels' difference */
    long long dx, dy, height, flat;
    Py_ssize_t n;
    PyObject *sets; /* the raster's stretch table (held: warm() may give the raster a new one meanwhile) */
    PyObject *sample; /* the ThreadSample, or the raster, kept while the walk reads the buffers */
    PyObject *raster; /* the raster whose stretch table sets is */
} pixels;

/* The buffers of ids (the raster's pixel ids from the thread's start pixel on) and offs (each sample's offset),
   n + 1 samples, the stretch table sets: px ready, or left to the Python reader where they are not plain. */
static int pixels_take(pixels *px, PyObject *ids, PyObject *offs, Py_ssize_t n, PyObject *sets) {
    if (!PyDict_CheckExact(sets)) return 0;
    px->n = n;
    Py_INCREF(sets);
    px->sets = sets;
    if (PyObject_GetBuffer(ids, &px->ids, PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (PyObject_GetBuffer(offs, &px->offs, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&px->ids);
        return -1;
    }
    if ((px->ids.itemsize == 1 || px->ids.itemsize == 2) && px->offs.itemsize == (Py_ssize_t)sizeof(Py_ssize_t) &&
        px->offs.len / px->offs.itemsize == n + 1) {
        px->ready = 1;
    } else {
        PyBuffer_Release(&px->ids);
        PyBuffer_Release(&px->offs);
    }
    return 0;
}

/* ArtworkRaster.sample's first case, a thread between two centre pixels met before (the starts' views) on an
   unturned raster and not shifted. 1: found (px ready, or left to the Python reader); 0: not that case; -1: an
   error. */
static int pixels_kept(pixels *px, PyObject *reader) {
    PyObject *shift = PyObject_GetAttr(reader, s_shift), *dep = NULL, *raster = NULL, *turned = NULL, *starts = NULL,
             *p = NULL, *q = NULL, *sets = NULL, *a = NULL, *b = NULL;
    int got = -1;
    if (shift == NULL) return -1;
    int shifted = PyObject_IsTrue(shift);
    if (shifted) { got = shifted < 0 ? -1 : 0; goto done; }
    if ((dep = PyObject_GetAttr(reader, s_dep)) == NULL || (raster = PyObject_GetAttr(dep, s_raster_attr)) == NULL ||
        (turned = PyObject_GetAttr(raster, s_turned)) == NULL)
        goto done;
    int turn = PyObject_IsTrue(turned);
    if (turn) { got = turn < 0 ? -1 : 0; goto done; }
    if ((starts = PyObject_GetAttr(raster, s_starts)) == NULL || (p = PyObject_GetAttr(reader, s_p)) == NULL ||
        (q = PyObject_GetAttr(reader, s_q)) == NULL ||
        (sets = PyObject_GetAttr(raster, s_sets)) == NULL)
        goto done;
    if (!PyDict_CheckExact(starts)) { got = 0; goto done; }
    a = PyDict_GetItemWithError(starts, p);
    b = a ? PyDict_GetItemWithError(starts, q) : NULL;
    if (b == NULL || !PyTuple_CheckExact(a) || !PyTuple_CheckExact(b) || PyTuple_GET_SIZE(a) != 3 ||
        PyTuple_GET_SIZE(b) != 3) {
        a = b = NULL;
        got = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    Py_INCREF(a);  /* held while read, whatever the calls below do to the raster's tables */
    Py_INCREF(b);
    PyObject *dx = PyNumber_Subtract(PyTuple_GET_ITEM(b, 0), PyTuple_GET_ITEM(a, 0));
    PyObject *dy = dx ? PyNumber_Subtract(PyTuple_GET_ITEM(b, 1), PyTuple_GET_ITEM(a, 1)) : NULL;
    if (dy == NULL) { Py_XDECREF(dx); goto done; }
    /* the offsets of that difference, as ArtworkRaster.sample works them out (numpy's floor division), each
       when a stretch asks for it: no array of them is made */
    int overflow = 0;
    long long ddx = PyLong_AsLongLongAndOverflow(dx, &overflow), ddy = PyLong_AsLongLongAndOverflow(dy, &overflow);
    Py_DECREF(dx);
    Py_DECREF(dy);
    if (PyErr_Occurred()) goto done;
    PyObject *height = PyObject_GetAttr(raster, s_height), *flat = height ? PyObject_GetAttr(raster, s_flat) : NULL;
    long long h = height ? PyLong_AsLongLong(height) : -1;
    Py_ssize_t nflat = flat ? PyObject_Length(flat) : -1;
    Py_XDECREF(height);
    Py_XDECREF(flat);
    if (PyErr_Occurred()) goto done;
    if (overflow || ddx > 1000000 || ddx < -1000000 || ddy > 1000000 || ddy < -1000000 || !PyDict_CheckExact(sets)) {
        got = 0;
        goto done;
    }
    long long n = llabs(ddx) > llabs(ddy) ? llabs(ddx) : llabs(ddy);
    if (n < 1) n = 1;
    if (PyObject_GetBuffer(PyTuple_GET_ITEM(a, 2), &px->ids, PyBUF_C_CONTIGUOUS) < 0) goto done;
    if (px->ids.itemsize != 1 && px->ids.itemsize != 2) {
        PyBuffer_Release(&px->ids);
        got = 0;
        goto done;
    }
    px->computed = 1;
    px->dx = ddx;
    px->dy = ddy;
    px->height = h;
    px->flat = nflat;
    px->n = (Py_ssize_t)n;
    Py_INCREF(sets);
    px->sets = sets;
    px->ready = 1;
    px->sample = raster;  /* keeps the raster, and with it ids and sets, while the walk reads them */
    Py_INCREF(raster);
    px->raster = raster;
    raster = NULL;
    got = 1;
done:
    Py_XDECREF(shift); Py_XDECREF(dep); Py_XDECREF(raster); Py_XDECREF(turned); Py_XDECREF(starts);
    Py_XDECREF(p); Py_XDECREF(q); Py_XDECREF(sets); Py_XDECREF(a); Py_XDECREF(b);
    return got;
}

static int pixels_open(pixels *px, PyObject *reader) {
    px->ready = -1;
    int kept = pixels_kept(px, reader);
    if (kept != 0) return kept < 0 ? -1 : 0;
    /* any other thread: the Python reader samples it (and keeps the sample for the rest of its walk) */
    PyObject *smp = PyObject_CallMethodNoArgs(reader, s_sampled);
    if (smp == NULL) return -1;
    px->sample = smp;
    PyObject *codes = PyObject_GetAttr(smp, s_codes);
    if (codes == NULL) return -1;
    int plain = codes == Py_None;
    Py_DECREF(codes);
    if (!plain) return 0; /* a thread sampled whole (not between two centre pixels) */
    PyObject *ids = PyObject_GetAttr(smp, s_ids), *offs = NULL, *n = NULL, *raster = NULL, *sets = NULL;
    int ok = -1;
    if (ids == NULL || (offs = PyObject_GetAttr(smp, s_offs)) == NULL || (n = PyObject_GetAttr(smp, s_n)) == NULL ||
        (raster = PyObject_GetAttr(smp, s_raster)) == NULL || (sets = PyObject_GetAttr(raster, s_sets)) == NULL)
        goto done;
    Py_ssize_t count = PyLong_AsSsize_t(n);
    if (count == -1 && PyErr_Occurred()) goto done;
    Py_INCREF(raster);
    px->raster = raster;
    ok = pixels_take(px, ids, offs, count, sets);
done:
    Py_XDECREF(ids);
    Py_XDECREF(offs);
    Py_XDECREF(n);
    Py_XDECREF(raster);
    Py_XDECREF(sets);
    return ok;
}

static void pixels_close(pixels *px) {
    if (px->ready == 1) {
        PyBuffer_Release(&px->ids);
        if (!px->computed) PyBuffer_Release(&px->offs);
    }
    Py_XDECREF(px->sample);
    Py_XDECREF(px->raster);
    Py_XDECREF(px->sets);
}

/* a // b as Python (and numpy's floor_divide) has it: rounded down, b > 0 */
static long long floordiv(long long a, long long b) {
    long long q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* ThreadSample.between(t0, t1): the codes met between t0 and t1 (a new reference) from the raster's stretch
   table, or worked out by its _set_of when not in it yet; NULL with no error set where the stretch lies off
   the sample (the Python reader reads it), NULL with an error set on an error. */
static PyObject *stretch(pixels *px, double t0, double t1) {
    Py_ssize_t n = px->n;
    if (!isfinite(t0) || !isfinite(t1) || t0 < -1 || t1 > 2) return NULL; /* the Python reader's */
    double fa = ceil(t0 * (double)n - 1e-9) + 1, fb = floor(t1 * (double)n + 1e-9) - 1;
    Py_ssize_t a, b;
    if (fb < fa) {
        double mid = nearbyint((t0 + t1) * (double)n / 2); /* Python's round: half to even */
        if (mid < 0) mid = 0;
        if (mid > (double)n) mid = (double)n;
        a = b = (Py_ssize_t)mid;
    } else {
        a = (Py_ssize_t)fa;
        b = (Py_ssize_t)fb;
    }
    if (a < 0 || b > n || b - a + 1 > MAX_STRETCH) return NULL;
    Py_ssize_t count = px->ids.len / px->ids.itemsize, k = b - a + 1;
    Py_ssize_t at[MAX_STRETCH];
    if (px->computed) {
        for (Py_ssize_t i = 0; i < k; i++) {
            long long j = a + i;
            at[i] = (Py_ssize_t)(floordiv(j * px->dx, n) * px->height + floordiv(j * px->dy, n) + px->flat);
        }
    } else {
        const Py_ssize_t *offs = (const Py_ssize_t *)px->offs.buf;
        for (Py_ssize_t i = 0; i < k; i++) at[i] = offs[a + i];
    }
    union { unsigned char b[MAX_STRETCH]; unsigned short s[MAX_STRETCH]; } buf;
    if (px->ids.itemsize == 1) {
        const unsigned char *ids = (const unsigned char *)px->ids.buf;
        for (Py_ssize_t i = 0; i < k; i++) {
            Py_ssize_t o = at[i];
            if (o < 0 || o >= count) return NULL;
            buf.b[i] = ids[o];
        }
    } else {
        const unsigned short *ids = (const unsigned short *)px->ids.buf;
        for (Py_ssize_t i = 0; i < k; i++) {
            Py_ssize_t o = at[i];
            if (o < 0 || o >= count) return NULL;
            buf.s[i] = ids[o];
        }
    }
    PyObject *key = PyBytes_FromStringAndSize((const char *)&buf, k * px->ids.itemsize);
    if (key == NULL) return NULL;
    PyObject *got = PyDict_GetItemWithError(px->sets, key);
    if (got != NULL) {
        Py_INCREF(got);
    } else if (!PyErr_Occurred()) {
        got = PyObject_CallMethodOneArg(px->raster, s_set_of, key);
    }
    Py_DECREF(key);
    return got;
}

/* list[idx] as Python reads it (a negative index counts from the end): a new reference, or NULL on an error. */
static PyObject *item(PyObject *list, long idx) {
    if (idx >= 0 && idx < PyList_GET_SIZE(list)) {
        PyObject *x = PyList_GET_ITEM(list, idx);
        Py_INCREF(x);
        return x;
    }
    return PySequence_GetItem(list, idx);
}

static PyObject *pyint(long v) { return PyLong_FromLong(v); }

/* wall_hex[idx]: whether a wall, hedge, bocage or rowhouse wall is on a hexside of hex idx (1, 0, or -1). */
static int wall_near(PyObject *walls, long idx) {
    PyObject *w = item(walls, idx);
    if (w == NULL) return -1;
    int yes = PyObject_IsTrue(w);
    Py_DECREF(w);
    return yes;
}

/* los._walk's quick test: 1 when the record can meet something at this LOS's levels, 0 when it cannot. */
static int meets(PyObject *rec, long floor, long slo, long shi) {
    PyObject *q = PyObject_GetAttr(rec, s_quick);
    if (q == NULL) return -1;
    long quick = PyLong_AsLong(q);
    Py_DECREF(q);
    if (quick == -1 && PyErr_Occurred()) return -1;
    if (quick < floor) return 0;
    if (quick > floor) return 1;
    if (!(slo == shi && shi == quick)) return 0;
    PyObject *h = PyObject_GetAttr(rec, s_hindrances);
    if (h == NULL) return -1;
    int any = PyObject_IsTrue(h);
    Py_DECREF(h);
    return any;
}

static long as_long(PyObject *o, int *err) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) *err = 1;
    return v;
}

/* The env tuple (los._Tables.kernel_env), in order. */
enum { E_WALL_HEX, E_WALLED, E_BLOCK_AT, E_VERTEX_ANY, E_CROSSED, E_RUN_ALONG, E_VERTEX_RULES, E_OBSTACLE_RULES,
       E_HINDRANCE_RULE, E_NARROW, E_FILL, E_FIRST_BLOCK, E_RUN_ALONG_FN, E_VERTEX_BLOCK, E_HINDRANCE_BLOCK, E_RECS_IN,
       E_COUNT };

/* Whether contact n lies within a stream depiction next to an end IN it (los._walk's dep): 1, 0, or -1. */
static int in_dep(PyObject *dep, Py_ssize_t n) {
    if (dep == Py_None) return 0;
    PyObject *k = PyLong_FromSsize_t(n);
    if (k == NULL) return -1;
    int in = PyDict_Contains(dep, k);
    Py_DECREF(k);
    return in;
}

/* The block of a wall rule tuple at a hexside (los._first_block), or Py_None: a new reference. */
static PyObject *wall_rules(PyObject *env, int which, PyObject *L, long ha, long hb, PyObject *t) {
    PyObject *key = Py_BuildValue("(ll)", ha, hb);
    if (key == NULL) return NULL;
    int in = PySequence_Contains(PyTuple_GET_ITEM(env, E_WALLED), key);
    if (in <= 0) {
        Py_DECREF(key);
        if (in < 0) return NULL;
        Py_RETURN_NONE;
    }
    PyObject *b = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(env, E_FIRST_BLOCK), PyTuple_GET_ITEM(env, which), L,
                                               key, t, NULL);
    Py_DECREF(key);
    return b;
}

/* The obstacles and Hindrances of one record, through their rules (the end of los._walk's loop body): the
   block (a new reference), Py_None (a new reference) to go on, NULL on an error. */
static PyObject *weigh(PyObject *rec, PyObject *L, PyObject *t, PyObject *out, PyObject *env, long lo, long slo) {
    PyObject *obs = PyObject_GetAttr(rec, s_obstacles);
    if (obs == NULL) return NULL;
    if (!PyTuple_CheckExact(obs)) { Py_DECREF(obs); PyErr_SetString(PyExc_TypeError, "obstacles: a tuple"); return NULL; }
    PyObject *orules_by_kind = PyTuple_GET_ITEM(env, E_OBSTACLE_RULES);
    Py_ssize_t no = PyTuple_GET_SIZE(obs);
    for (Py_ssize_t i = 0; i < no; i++) {
        PyObject *o = PyTuple_GET_ITEM(obs, i);
        PyObject *kind = PyObject_GetAttr(o, s_kind), *top = NULL;
        if (kind == NULL) goto fail;
        PyObject *entry = PyObject_GetItem(orules_by_kind, kind);
        Py_DECREF(kind);
        if (entry == NULL) goto fail;
        int half = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 0));
        PyObject *orules = PyTuple_GET_ITEM(entry, 1);
        top = PyObject_GetAttr(o, s_top);
        if (top == NULL || half < 0) { Py_DECREF(entry); Py_XDECREF(top); goto fail; }
        int err = 0;
        long tv = as_long(top, &err);
        Py_DECREF(top);
        if (err) { Py_DECREF(entry); goto fail; }
        if (tv <= (half ? slo : lo)) { Py_DECREF(entry); continue; }
        Py_ssize_t nr = PyTuple_GET_SIZE(orules);
        for (Py_ssize_t r = 0; r < nr; r++) {
            PyObject *args[3] = {L, o, t};
            PyObject *v = PyObject_Vectorcall(PyTuple_GET_ITEM(orules, r), args, 3, NULL);
            if (v == NULL) { Py_DECREF(entry); goto fail; }
            if (v == Py_None) { Py_DECREF(v); continue; }
            int yes = PyObject_IsTrue(v);
            if (yes < 0) { Py_DECREF(v); Py_DECREF(entry); goto fail; }
            if (yes) { Py_DECREF(entry); Py_DECREF(obs); return v; }
            Py_DECREF(v);
            break;
        }
        Py_DECREF(entry);
    }
    Py_DECREF(obs);
    PyObject *hinds = PyObject_GetAttr(rec, s_hindrances);
    if (hinds == NULL) return NULL;
    if (!PyTuple_CheckExact(hinds)) { Py_DECREF(hinds); PyErr_SetString(PyExc_TypeError, "hindrances: a tuple"); return NULL; }
    PyObject *hrule = PyTuple_GET_ITEM(env, E_HINDRANCE_RULE);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(hinds); i++) {
        PyObject *h = PyTuple_GET_ITEM(hinds, i);
        PyObject *kind = PyObject_GetAttr(h, s_kind);
        if (kind == NULL) goto hfail;
        PyObject *rule = PyObject_GetItem(hrule, kind);
        Py_DECREF(kind);
        if (rule == NULL) goto hfail;
        PyObject *met = PyObject_GetAttr(out, s_hinds);
        if (met == NULL) { Py_DECREF(rule); goto hfail; }
        PyObject *args[4] = {L, h, t, met};
        PyObject *m = PyObject_Vectorcall(rule, args, 4, NULL);
        Py_DECREF(rule);
        if (m == NULL) { Py_DECREF(met); goto hfail; }
        if (m == Py_None) { Py_DECREF(m); Py_DECREF(met); continue; }
        PyObject *drm = PyObject_GetAttr(out, s_drm), *add = NULL, *sum = NULL;
        if (drm == NULL || (add = PyObject_GetAttr(m, s_drm)) == NULL || (sum = PyNumber_Add(drm, add)) == NULL ||
            PyObject_SetAttr(out, s_drm, sum) < 0 || PyList_Append(met, m) < 0) {
            Py_XDECREF(drm); Py_XDECREF(add); Py_XDECREF(sum); Py_DECREF(m); Py_DECREF(met);
            goto hfail;
        }
        Py_DECREF(drm);
        Py_DECREF(add);
        Py_DECREF(met);
        int over = PyObject_RichCompareBool(sum, PyTuple_GET_ITEM(env, E_BLOCK_AT), Py_GE);
        if (over != 0) {
            PyObject *b = over < 0 ? NULL
                                   : PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(env, E_HINDRANCE_BLOCK), t, m, sum,
                                                                  NULL);
            Py_DECREF(sum);
            Py_DECREF(m);
            Py_DECREF(hinds);
            return b;
        }
        Py_DECREF(sum);
        Py_DECREF(m);
    }
    Py_DECREF(hinds);
    Py_RETURN_NONE;
fail:
    Py_DECREF(obs);
    return NULL;
hfail:
    Py_DECREF(hinds);
    return NULL;
}

/* The record of a hex interior on artwork (los._ArtworkThread.interior, and what it asks of the depiction):
   a new reference, or NULL on an error. *dep is the depiction, read at the first interior. */
static PyObject *artwork_interior(PyObject *reader, pixels *px, PyObject **dep, long idx, const contact *c,
                                  PyObject *ct) {
    PyObject *rec = NULL;
    if (*dep == NULL && (*dep = PyObject_GetAttr(reader, s_dep)) == NULL) return NULL;
    PyObject *key = PyLong_FromLong(idx);
    if (key == NULL) return NULL;
    PyObject *stat = PyObject_GetAttr(*dep, s_static);
    if (stat == NULL) { Py_DECREF(key); return NULL; }
    if (PyDict_CheckExact(stat)) {
        rec = PyDict_GetItemWithError(stat, key);
        Py_XINCREF(rec);
    }
    Py_DECREF(stat);
    if (rec == NULL) {
        if (PyErr_Occurred()) { Py_DECREF(key); return NULL; }
        rec = PyObject_CallMethodOneArg(*dep, s_static_fn, key); /* first met: the depiction looks */
        if (rec == NULL) { Py_DECREF(key); return NULL; }
    }
    if (rec != Py_None) { Py_DECREF(key); return rec; }
    Py_DECREF(rec);
    rec = NULL;
    /* drawn by more than one code: the codes of the stretch tell */
    if (px->ready == 0 && pixels_open(px, reader) < 0) { Py_DECREF(key); return NULL; }
    PyObject *codes = px->ready > 0 ? stretch(px, c->t0, c->t1) : NULL;
    if (codes == NULL) {
        Py_DECREF(key);
        if (PyErr_Occurred()) return NULL;
        /* pixels the sample does not hold as plain buffers: the Python reader reads them */
        PyObject *ix = pyint(idx);
        if (ix == NULL) return NULL;
        PyObject *args[4] = {reader, ix, PyTuple_GET_ITEM(ct, 1), PyTuple_GET_ITEM(ct, 2)};
        rec = PyObject_VectorcallMethod(s_interior, args, 4 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(ix);
        return rec;
    }
    PyObject *cache = PyObject_GetAttr(*dep, s_cache);
    if (cache != NULL && PyDict_CheckExact(cache)) {
        PyObject *rk = PyTuple_Pack(2, key, codes);
        if (rk != NULL) {
            rec = PyDict_GetItemWithError(cache, rk);
            Py_XINCREF(rec);
            Py_DECREF(rk);
        }
    }
    Py_XDECREF(cache);
    if (rec == NULL && !PyErr_Occurred()) { /* not yet derived: the depiction derives it */
        PyObject *args[3] = {*dep, key, codes};
        rec = PyObject_VectorcallMethod(s_record, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    }
    Py_DECREF(key);
    Py_DECREF(codes);
    return rec;
}

static PyObject *walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "walk(L, contacts, packed, base, ia, ib, out, recs, reader, env, dep) takes "
                                         "11 arguments");
        return NULL;
    }
    PyObject *L = args[0], *contacts = args[1], *out = args[6], *recs = args[7], *reader = args[8], *env = args[9];
    PyObject *dep = args[10];
    if (!PyTuple_Check(L) || PyTuple_GET_SIZE(L) < 10 || !PyTuple_CheckExact(contacts) || !PyTuple_CheckExact(env) ||
        PyTuple_GET_SIZE(env) != E_COUNT || !PyList_CheckExact(PyTuple_GET_ITEM(env, E_WALL_HEX)) ||
        (recs != Py_None && !PyList_CheckExact(recs)) || (dep != Py_None && !PyDict_CheckExact(dep)) ||
        !PyList_CheckExact(PyTuple_GET_ITEM(env, E_RECS_IN))) {
        PyErr_SetString(PyExc_TypeError, "walk: a _Los, a contacts tuple, the tables' kernel_env and list tables");
        return NULL;
    }
    Py_buffer pk;
    if (PyObject_GetBuffer(args[2], &pk, PyBUF_SIMPLE) < 0) return NULL;
    int err = 0;
    long base = as_long(args[3], &err), ia = as_long(args[4], &err), ib = as_long(args[5], &err);
    long lo = as_long(PyTuple_GET_ITEM(L, 6), &err), slo = as_long(PyTuple_GET_ITEM(L, 8), &err);
    long shi = as_long(PyTuple_GET_ITEM(L, 9), &err);
    int vertex_any = err ? -1 : PyObject_IsTrue(PyTuple_GET_ITEM(env, E_VERTEX_ANY));
    long floor_ = slo < lo ? slo : lo;
    PyObject *walls = PyTuple_GET_ITEM(env, E_WALL_HEX);
    PyObject *result = NULL, *depiction = NULL;
    pixels px = {0};
    const contact *cs = (const contact *)pk.buf;
    Py_ssize_t count = pk.len / (Py_ssize_t)sizeof(contact);
    if (err || vertex_any < 0) goto out;
    if (count != PyTuple_GET_SIZE(contacts)) {
        PyErr_SetString(PyExc_ValueError, "walk: packed and contacts differ in length");
        goto out;
    }
    for (Py_ssize_t n = 0; n < count; n++) {
        const contact *c = &cs[n];
        PyObject *ct = PyTuple_GET_ITEM(contacts, n), *rec = NULL;
        if (!PyTuple_CheckExact(ct) || PyTuple_GET_SIZE(ct) < 4) {
            PyErr_SetString(PyExc_TypeError, "walk: a contact is a tuple (kind, t0, t1, hex, ...)");
            goto out;
        }
        long idx = base + c->off;
        if (c->kind == SPAN) {
            if (idx == ia || idx == ib) continue;
            int bed = in_dep(dep, n);
            if (bed < 0) goto out;
            if (bed) { /* read as the stream bed (B20.2) */
                rec = item(PyTuple_GET_ITEM(env, E_RECS_IN), idx);
                if (rec == NULL) goto out;
            } else if (recs != Py_None) {
                rec = item(recs, idx);
                if (rec == NULL) goto out;
                if (rec == Py_None) {
                    Py_DECREF(rec);
                    PyObject *ix = pyint(idx);
                    if (ix == NULL) goto out;
                    rec = PyObject_CallOneArg(PyTuple_GET_ITEM(env, E_FILL), ix);
                    Py_DECREF(ix);
                    if (rec == NULL) goto out;
                }
            } else {
                rec = artwork_interior(reader, &px, &depiction, idx, c, ct);
                if (rec == NULL) goto out;
            }
        } else if (c->kind == CROSS) {
            int yes = wall_near(walls, idx);
            if (yes < 0) goto out;
            if (yes) {
                PyObject *b = wall_rules(env, E_CROSSED, L, idx, base + c->off2, PyTuple_GET_ITEM(ct, 1));
                if (b == NULL) goto out;
                if (b != Py_None) { result = b; goto out; }
                Py_DECREF(b);
            }
            continue;
        } else if (c->kind == ALONG) {
            long hb = base + c->off2;
            int yes = wall_near(walls, idx);
            if (yes < 0) goto out;
            if (yes) {
                PyObject *b = wall_rules(env, E_RUN_ALONG, L, idx, hb, PyTuple_GET_ITEM(ct, 1));
                if (b == NULL) goto out;
                if (b != Py_None) { result = b; goto out; }
                Py_DECREF(b);
            }
            int bed = in_dep(dep, n);
            if (bed < 0) goto out;
            if (bed) continue;
            PyObject *x = pyint(idx), *y = pyint(hb), *xa = pyint(ia), *xb = pyint(ib);
            if (x && y && xa && xb) {
                PyObject *a[7] = {reader, x, y, xa, xb, ct, PyTuple_GET_ITEM(env, E_NARROW)};
                rec = PyObject_Vectorcall(PyTuple_GET_ITEM(env, E_RUN_ALONG_FN), a, 7, NULL);
            }
            Py_XDECREF(x); Py_XDECREF(y); Py_XDECREF(xa); Py_XDECREF(xb);
            if (rec == NULL) goto out;
        } else if (c->kind == TOUCH) {
            if (idx == ia || idx == ib) continue;
            int bed = in_dep(dep, n);
            if (bed < 0) goto out;
            if (bed) continue;
            PyObject *r = Py_BuildValue("(l)", idx);
            if (r == NULL) goto out;
            PyObject *a[5] = {reader, r, PyTuple_GET_ITEM(ct, 1), PyTuple_GET_ITEM(ct, 2), Py_False};
            rec = PyObject_VectorcallMethod(s_boundary, a, 5 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
            Py_DECREF(r);
            if (rec == NULL) goto out;
        } else if (c->kind == VERTEX) {
            int yes = vertex_any ? 1 : wall_near(walls, idx);
            if (yes < 0) goto out;
            if (yes) {
                PyObject *b = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(env, E_VERTEX_BLOCK),
                                                           PyTuple_GET_ITEM(env, E_VERTEX_RULES), L, ct, args[3], NULL);
                if (b == NULL) goto out;
                if (b != Py_None) { result = b; goto out; }
                Py_DECREF(b);
            }
            continue;
        } else {
            continue; /* PASS: read only by the stream depiction */
        }
        int m = meets(rec, floor_, slo, shi);
        if (m <= 0) {
            Py_DECREF(rec);
            if (m < 0) goto out;
            continue;
        }
        PyObject *b = weigh(rec, L, PyTuple_GET_ITEM(ct, 1), out, env, lo, slo);
        Py_DECREF(rec);
        if (b == NULL) goto out;
        if (b != Py_None) { result = b; goto out; }
        Py_DECREF(b);
    }
    result = Py_None;
    Py_INCREF(result);
out:
    pixels_close(&px);
    Py_XDECREF(depiction);
    PyBuffer_Release(&pk);
    return result;
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL,
     "walk(L, contacts, packed, base, ia, ib, out, recs, reader, env, dep): los._walk of a compiled shape"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_walk", "The compiled walk of a LOS thread.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk(void) {
#define INTERN(v, s) if ((v = PyUnicode_InternFromString(s)) == NULL) return NULL
    INTERN(s_quick, "quick");
    INTERN(s_hindrances, "hindrances");
    INTERN(s_obstacles, "obstacles");
    INTERN(s_kind, "kind");
    INTERN(s_top, "top");
    INTERN(s_drm, "drm");
    INTERN(s_hinds, "hinds");
    INTERN(s_dep, "dep");
    INTERN(s_static, "_static");
    INTERN(s_cache, "_cache");
    INTERN(s_sampled, "sampled");
    INTERN(s_codes, "_codes");
    INTERN(s_ids, "_ids");
    INTERN(s_offs, "_offs");
    INTERN(s_n, "n");
    INTERN(s_raster, "_raster");
    INTERN(s_sets, "_sets");
    INTERN(s_interior, "interior");
    INTERN(s_boundary, "boundary");
    INTERN(s_shift, "shift");
    INTERN(s_raster_attr, "raster");
    INTERN(s_turned, "_turned");
    INTERN(s_starts, "_starts");
    INTERN(s_p, "p");
    INTERN(s_q, "q");
    INTERN(s_set_of, "_set_of");
    INTERN(s_record, "_record");
    INTERN(s_static_fn, "static");
    INTERN(s_height, "height");
    INTERN(s_flat, "_flat");
    return PyModule_Create(&module);
}
