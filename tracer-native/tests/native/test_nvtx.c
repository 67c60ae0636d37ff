/* Unit test of the NVTX injection (src/interposer/nvtx.c) in the built libapptrace.so, with no
 * collector (tracing off): InitializeInjectionNvtx2 is given a fake NVTX export table laid out as
 * NVTX v3's own (nvtxDetail/nvtxImpl.h: per module, an array of pointers to the function pointer
 * slots, indexed by callback id, whose size is the slot count less one), and the functions it
 * installs are called as NVTX would call them: what they return to the program, and that odd
 * arguments (NULL, attributes too small, unknown message types) are harmless.
 * Usage: test_nvtx [LIBAPPTRACE] */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...)                          \
    do {                                           \
        if (!(cond)) {                             \
            printf("FAIL line %d: ", __LINE__);    \
            printf(__VA_ARGS__);                   \
            printf("\n");                          \
            failures++;                            \
        }                                          \
    } while (0)

/* The fake NVTX: slots and the tables of pointers to them. */
static NvtxFunctionPointer core_slots[NVTX_CBID_CORE_SIZE];
static NvtxFunctionPointer *core_table[NVTX_CBID_CORE_SIZE + 1];
static NvtxFunctionPointer core2_slots[NVTX_CBID_CORE2_SIZE];
static NvtxFunctionPointer *core2_table[NVTX_CBID_CORE2_SIZE + 1];
static unsigned int core_size; /* what GetModuleFunctionTable reports */
static int have_core2;

static int NVTX_API get_module_table(NvtxCallbackModule m, NvtxFunctionTable *out, unsigned int *size) {
    if (m == NVTX_CB_MODULE_CORE) {
        *out = core_table;
        *size = core_size;
        return 1;
    }
    if (m == NVTX_CB_MODULE_CORE2 && have_core2) {
        *out = core2_table;
        *size = NVTX_CBID_CORE2_SIZE - 1;
        return 1;
    }
    return 0;
}

static const NvtxExportTableCallbacks callbacks = {sizeof(NvtxExportTableCallbacks), get_module_table};
static const void *NVTX_API export_table(uint32_t id) {
    return id == NVTX_ETID_CALLBACKS ? &callbacks : NULL;
}
static const void *NVTX_API no_export_table(uint32_t id) {
    (void)id;
    return NULL;
}

static void reset(unsigned int size, int core2) {
    memset(core_slots, 0, sizeof core_slots);
    memset(core2_slots, 0, sizeof core2_slots);
    for (int i = 1; i < NVTX_CBID_CORE_SIZE; i++) core_table[i] = &core_slots[i];
    for (int i = 1; i < NVTX_CBID_CORE2_SIZE; i++) core2_table[i] = &core2_slots[i];
    core_size = size;
    have_core2 = core2;
}

#define CORE(id, type) ((type)core_slots[NVTX_CBID_CORE_##id])
#define CORE2(id, type) ((type)core2_slots[NVTX_CBID_CORE2_##id])

static void *other_thread(void *arg) {
    nvtxRangePushA_impl_fntype push = CORE(RangePushA, nvtxRangePushA_impl_fntype);
    nvtxRangePop_impl_fntype pop = CORE(RangePop, nvtxRangePop_impl_fntype);
    int *levels = arg;
    levels[0] = push("other");
    levels[1] = pop();
    return NULL;
}

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "target/native/libapptrace.so";
    unsetenv("APPTRACE_SOCKET"); /* no collector: tracing is off */
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        printf("FAIL: %s\n", dlerror());
        return 1;
    }
    NvtxInitializeInjectionNvtxFunc_t init = (NvtxInitializeInjectionNvtxFunc_t)dlsym(h, "InitializeInjectionNvtx2");
    EXPECT(init != NULL, "InitializeInjectionNvtx2 is not exported");
    if (init == NULL) return 1;

    /* Refused, with nothing written, when NVTX gives no callback table. */
    reset(NVTX_CBID_CORE_SIZE - 1, 1);
    EXPECT(init(NULL) == 0, "init(NULL) accepted");
    EXPECT(init(no_export_table) == 0, "init without a callback table accepted");
    EXPECT(core_slots[NVTX_CBID_CORE_MarkA] == NULL, "a slot written though init failed");

    /* An NVTX v1 without CORE2 and with a CORE table that ends at RangeEnd: what fits is written. */
    reset(NVTX_CBID_CORE_RangeEnd, 0);
    EXPECT(init(export_table) == 1, "init refused an NVTX without CORE2");
    EXPECT(core_slots[NVTX_CBID_CORE_RangeEnd] != NULL, "RangeEnd not installed");
    EXPECT(core_slots[NVTX_CBID_CORE_RangePushA] == NULL, "a slot beyond the table's size was written");

    /* The full tables. */
    reset(NVTX_CBID_CORE_SIZE - 1, 1);
    EXPECT(init(export_table) == 1, "init refused");
    for (int id = NVTX_CBID_CORE_MarkEx; id <= NVTX_CBID_CORE_RangePop; id++) {
        EXPECT(core_slots[id] != NULL, "CORE slot %d not installed", id);
    }
    EXPECT(core_slots[NVTX_CBID_CORE_NameCategoryA] == NULL, "a function apptrace does not record was installed");
    EXPECT(core2_slots[NVTX_CBID_CORE2_DomainRangePushEx] != NULL, "DomainRangePushEx not installed");
    EXPECT(core2_slots[NVTX_CBID_CORE2_DomainResourceCreate] == NULL, "DomainResourceCreate installed");

    /* Push/pop return the level NVTX specifies; a pop with nothing open returns -1. */
    nvtxRangePushA_impl_fntype push = CORE(RangePushA, nvtxRangePushA_impl_fntype);
    nvtxRangePushW_impl_fntype push_w = CORE(RangePushW, nvtxRangePushW_impl_fntype);
    nvtxRangePushEx_impl_fntype push_ex = CORE(RangePushEx, nvtxRangePushEx_impl_fntype);
    nvtxRangePop_impl_fntype pop = CORE(RangePop, nvtxRangePop_impl_fntype);
    EXPECT(push("a") == 0, "first push not level 0");
    EXPECT(push(NULL) == 1, "a push with no message not level 1");
    EXPECT(push_w(L"w\u00f6rker \U0001F600") == 2, "wide push not level 2");
    EXPECT(push_ex(NULL) == 3, "push_ex(NULL) not level 3");
    nvtxEventAttributes_t small = {.version = NVTX_VERSION, .size = 4, .messageType = NVTX_MESSAGE_TYPE_ASCII};
    EXPECT(push_ex(&small) == 4, "push_ex with attributes too small not level 4");
    nvtxEventAttributes_t odd = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE, .messageType = 99};
    EXPECT(push_ex(&odd) == 5, "push_ex with an unknown message type not level 5");
    nvtxEventAttributes_t wide_null = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                                       .messageType = NVTX_MESSAGE_TYPE_UNICODE};
    EXPECT(push_ex(&wide_null) == 6, "push_ex with a NULL wide message not level 6");
    int levels[2];
    pthread_t t;
    pthread_create(&t, NULL, other_thread, levels);
    pthread_join(t, NULL);
    EXPECT(levels[0] == 0 && levels[1] == 0, "another thread's stack: push %d pop %d, expected 0 0", levels[0],
           levels[1]);
    for (int expected = 6; expected >= 0; expected--) {
        int got = pop();
        EXPECT(got == expected, "pop returned %d, expected %d", got, expected);
    }
    EXPECT(pop() == -1, "a pop with nothing open did not return -1");
    EXPECT(pop() == -1, "a second pop with nothing open did not return -1");
    EXPECT(push("again") == 0, "after unbalanced pops, a push not level 0");
    EXPECT(pop() == 0, "its pop not level 0");

    /* Domains: one handle per name; each has its own stack. Registered strings are handles. */
    nvtxDomainCreateA_impl_fntype create = CORE2(DomainCreateA, nvtxDomainCreateA_impl_fntype);
    nvtxDomainCreateW_impl_fntype create_w = CORE2(DomainCreateW, nvtxDomainCreateW_impl_fntype);
    nvtxDomainRegisterStringA_impl_fntype reg = CORE2(DomainRegisterStringA, nvtxDomainRegisterStringA_impl_fntype);
    nvtxDomainRangePushEx_impl_fntype dpush = CORE2(DomainRangePushEx, nvtxDomainRangePushEx_impl_fntype);
    nvtxDomainRangePop_impl_fntype dpop = CORE2(DomainRangePop, nvtxDomainRangePop_impl_fntype);
    nvtxDomainMarkEx_impl_fntype dmark = CORE2(DomainMarkEx, nvtxDomainMarkEx_impl_fntype);
    nvtxDomainHandle_t io = create("io");
    EXPECT(io != NULL, "no domain handle");
    EXPECT(create("io") == io, "a second domain 'io' got another handle");
    EXPECT(create_w(L"io") == io, "the wide 'io' got another handle");
    EXPECT(create("net") != io, "domain 'net' got the handle of 'io'");
    EXPECT(create(NULL) != NULL, "a domain with no name got no handle");
    nvtxStringHandle_t load = reg(io, "load");
    EXPECT(load != NULL, "no string handle");
    nvtxEventAttributes_t r = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_REGISTERED};
    r.message.registered = load;
    EXPECT(push("outer") == 0, "push before the domain's not level 0");
    EXPECT(dpush(io, &r) == 0, "the domain's first push not level 0");
    EXPECT(dpush(NULL, &r) == 1, "a push in the default domain (NULL handle) not level 1");
    r.message.registered = NULL;
    EXPECT(dpush(io, &r) == 1, "a push with a NULL registered string not level 1");
    dmark(io, NULL);
    dmark(NULL, &r);
    EXPECT(dpop(io) == 1 && dpop(io) == 0 && dpop(io) == -1, "the domain's pops");
    EXPECT(pop() == 1 && pop() == 0, "the default domain's pops");

    /* Marks and start/end: nothing to return but fresh ids; any id may be ended. */
    CORE(MarkA, nvtxMarkA_impl_fntype)(NULL);
    CORE(MarkW, nvtxMarkW_impl_fntype)(NULL);
    CORE(MarkEx, nvtxMarkEx_impl_fntype)(NULL);
    nvtxRangeId_t a = CORE(RangeStartA, nvtxRangeStartA_impl_fntype)("a");
    nvtxRangeId_t b = CORE(RangeStartEx, nvtxRangeStartEx_impl_fntype)(NULL);
    nvtxRangeId_t c = CORE2(DomainRangeStartEx, nvtxDomainRangeStartEx_impl_fntype)(io, &odd);
    EXPECT(a != 0 && b != a && c != b && c != a, "range ids %llu %llu %llu not distinct", (unsigned long long)a,
           (unsigned long long)b, (unsigned long long)c);
    CORE(RangeEnd, nvtxRangeEnd_impl_fntype)(b);
    CORE(RangeEnd, nvtxRangeEnd_impl_fntype)(12345);
    CORE2(DomainRangeEnd, nvtxDomainRangeEnd_impl_fntype)(io, c);
    CORE2(DomainDestroy, nvtxDomainDestroy_impl_fntype)(io);

    if (failures) {
        printf("test_nvtx: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_nvtx: ok\n");
    return 0;
}
