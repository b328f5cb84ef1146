// schedcheck's Java shim (specs/protocol.md, protocol 1): Java 17, the JDK alone.
//
//   javac -d build Shim.java MyWheel.java && java -cp build Shim MyWheel
//
// The class named on the command line has the contract's methods, public, named either way
// (schedule_after or scheduleAfter). Parameters typed long/int/Long get JSON integers (anything
// else is refused with TypeError, as the compiler would refuse it); Object, String, List and
// boolean parameters get the JSON value as it is. A scheduler is built as `new C(long
// maxConcurrency)`; a wheel as `new C(long tick, long wheelSize, Map<String, Object> options)`
// (options by their camelCase names, only those in its `public static final String[] OPTIONS`)
// or `new C(long tick, long wheelSize)`. Thrown exceptions are replied under their simple class
// name (CycleError, WheelFullError...; IllegalArgumentException counts as ValueError), with
// their public fields (taskId, missing, cycle, pending, maxPending) as the error's fields.
// Design differences are declared as `public static final Map<String, Object> CAPABILITIES`
// (the names of schedcheck/targets/adapters.py's capabilities, camelCase or snake_case:
// Map.of("generations", false, "claimOrder", "any")), a scheduler's optional edges as
// `public static final String[] FEATURES = {"optional"}`.
// Values returned are sent as JSON: records and objects by their public fields or record
// components, enums by name. Log to System.err: System.out carries protocol lines only.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Shim {
    static final List<String> SCHEDULER = List.of("submit", "start", "ready", "complete", "fail",
        "cancel", "cancel_requested", "close", "info", "retry", "add_dependency", "ready_pairs",
        "complete_many");
    static final List<String> WHEEL = List.of("schedule", "schedule_after", "cancel", "advance",
        "pending", "lag_ticks", "callback_errors");

    /** An error reply: the contract's name and a message. */
    static final class Refused extends RuntimeException {
        final String name;
        Refused(String name, String message) { super(message); this.name = name; }
    }

    static final class Instance {
        final Object obj;
        final Map<Object, Long> ids = new IdentityHashMap<>();
        final Map<Long, Object> handles = new HashMap<>();
        final java.util.LinkedHashSet<Object> taskIds = new java.util.LinkedHashSet<>();
        Instance(Object obj) { this.obj = obj; }
        long idOf(Object handle) {
            return ids.computeIfAbsent(handle, h -> { long id = ids.size(); handles.put(id, h); return id; });
        }
    }

    static Class<?> impl;
    static String system;
    static final Map<Long, Instance> instances = new HashMap<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java -cp BUILD Shim ClassName");
            System.exit(2);
        }
        impl = Class.forName(args[0]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // a stray System.out.println of the implementation goes to stderr
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            @SuppressWarnings("unchecked")
            Map<String, Object> msg = (Map<String, Object>) new Json(line).value();
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("id", msg.get("id"));
            try {
                reply.put("value", handle(msg));
            } catch (Throwable e) {
                reply.put("error", errorOf(e instanceof InvocationTargetException ? e.getCause() : e));
            }
            if ("call".equals(msg.get("op")) && msg.get("queries") instanceof List<?> queries
                    && instances.containsKey(msg.get("instance"))) {
                reply.put("after", answers(instances.get(msg.get("instance")), queries));
            }
            out.print(Json.write(reply) + "\n");
            out.flush();
            if ("shutdown".equals(msg.get("op"))) System.exit(0);
        }
    }

    static String camel(String name) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : name.toCharArray()) {
            if (c == '_') { up = true; continue; }
            b.append(up ? Character.toUpperCase(c) : c);
            up = false;
        }
        return b.toString();
    }

    static String snake(String name) {
        StringBuilder b = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (Character.isUpperCase(c)) b.append('_').append(Character.toLowerCase(c));
            else b.append(c);
        }
        return b.toString();
    }

    /** A public static field of the implementation (CAPABILITIES, FEATURES), or null. */
    static Object declared(String field) {
        try {
            return impl.getField(field).get(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    static List<Method> methods(String name) {
        List<Method> found = new ArrayList<>();
        for (Method m : impl.getMethods()) {
            if (m.getName().equals(name) || m.getName().equals(camel(name))) found.add(m);
        }
        return found;
    }

    static Object handle(Map<String, Object> msg) throws Exception {
        String op = (String) msg.get("op");
        switch (op) {
            case "hello": {
                system = (String) msg.get("system");
                List<String> methods = new ArrayList<>();
                for (String m : "wheel".equals(system) ? WHEEL : SCHEDULER) if (!methods(m).isEmpty()) methods.add(m);
                Map<String, Object> hello = new LinkedHashMap<>();
                hello.put("protocol", 1L);
                hello.put("system", system);
                hello.put("implementation", impl.getName() + " (Java)");
                hello.put("methods", methods);
                Object features = declared("FEATURES");
                if (features instanceof String[] names) hello.put("features", List.of(names));
                if (declared("CAPABILITIES") instanceof Map<?, ?> caps) {
                    Map<String, Object> snaked = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : caps.entrySet()) snaked.put(snake(String.valueOf(e.getKey())), e.getValue());
                    hello.put("capabilities", snaked);
                }
                return hello;
            }
            case "new": {
                Object drop = msg.get("drop");
                if (drop instanceof List<?> ids) for (Object id : ids) instances.remove(id);
                @SuppressWarnings("unchecked")
                List<Object> args = (List<Object>) msg.get("args");
                @SuppressWarnings("unchecked")
                Map<String, Object> options = (Map<String, Object>) msg.get("options");
                instances.put((Long) msg.get("instance"), new Instance(build(args, options)));
                return null;
            }
            case "call": {
                Instance inst = instances.get(msg.get("instance"));
                if (inst == null) throw new Refused("TypeError", "no instance " + msg.get("instance"));
                @SuppressWarnings("unchecked")
                List<Object> args = (List<Object>) msg.get("args");
                return call(inst, (String) msg.get("method"), args);
            }
            case "shutdown":
                return null;
            default:
                throw new Refused("TypeError", "unknown op " + op);
        }
    }

    /** Answers in advance (specs/protocol.md): the queries the checker will likely ask next. */
    static Map<String, Object> answers(Instance inst, List<?> queries) {
        Map<String, Object> after = new LinkedHashMap<>();
        for (Object q : queries) {
            if ("info".equals(q)) {
                if (methods("info").isEmpty()) continue;
                List<Object> infos = new ArrayList<>();
                for (Object id : inst.taskIds) {
                    Map<String, Object> one = new LinkedHashMap<>();
                    try {
                        one.put("value", call(inst, "info", new ArrayList<>(List.of(id))));
                    } catch (Throwable e) {
                        one.put("error", errorOf(e instanceof InvocationTargetException ? e.getCause() : e));
                    }
                    infos.add(Arrays.asList(id, one));
                }
                after.put("info", infos);
            } else if (q instanceof String name && "wheel".equals(system) && !methods(name).isEmpty()) {
                try {
                    after.put(name, call(inst, name, new ArrayList<>()));
                } catch (Throwable e) { /* asked for real when needed */ }
            }
        }
        return after;
    }

    static Object build(List<Object> args, Map<String, Object> options) throws Exception {
        for (Object a : args) opaqueCheck(a);
        if ("wheel".equals(system)) {
            List<String> allowed = new ArrayList<>();
            try {
                for (String o : (String[]) impl.getField("OPTIONS").get(null)) allowed.add(snake(o));
            } catch (NoSuchFieldException e) { /* no options */ }
            Map<String, Object> opts = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : options.entrySet()) {
                if (!allowed.contains(e.getKey())) throw new Refused("TypeError", impl.getSimpleName() + " takes no option " + e.getKey());
                opaqueCheck(e.getValue());
                opts.put(camel(e.getKey()), e.getValue());
            }
            List<Object> all = new ArrayList<>(args);
            all.add(opts);
            for (Constructor<?> c : impl.getConstructors()) {
                if (c.getParameterCount() == all.size()) return c.newInstance(convert(c.getParameterTypes(), all, null));
            }
            if (!opts.isEmpty()) throw new Refused("TypeError", impl.getSimpleName() + " takes no options");
        }
        for (Constructor<?> c : impl.getConstructors()) {
            if (c.getParameterCount() == args.size()) return c.newInstance(convert(c.getParameterTypes(), args, null));
        }
        throw new Refused("TypeError", impl.getSimpleName() + " has no constructor of " + args.size() + " arguments");
    }

    static void opaqueCheck(Object value) {
        if (value instanceof Map<?, ?> m && m.containsKey("$object")) {
            throw new Refused("TypeError", m.get("$object") + " (a Python " + m.get("type") + ") is not a value of the contract");
        }
    }

    static Object[] convert(Class<?>[] types, List<Object> args, Instance inst) {
        Object[] out = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Object a = args.get(i);
            opaqueCheck(a);
            Class<?> t = types[i];
            if (t == long.class || t == Long.class || t == int.class || t == Integer.class) {
                if (a == null && !t.isPrimitive()) { out[i] = null; continue; }
                if (!(a instanceof Long n)) throw new Refused("TypeError", "argument " + (i + 1) + " must be an integer, not " + Json.write(a));
                out[i] = (t == int.class || t == Integer.class) ? (Object) Math.toIntExact(n) : n;
            } else if (t == boolean.class || t == Boolean.class) {
                if (!(a instanceof Boolean)) throw new Refused("TypeError", "argument " + (i + 1) + " must be a boolean");
                out[i] = a;
            } else if (a instanceof Map<?, ?> ref && ref.containsKey("handle") && inst != null) {
                Instance owner = instances.get(ref.get("instance"));
                Object h = owner == null ? null : owner.handles.get(ref.get("handle"));
                if (h == null || !t.isInstance(h)) throw new Refused("TypeError", "not a handle of this implementation: " + Json.write(a));
                out[i] = h;
            } else {
                if (a != null && !t.isInstance(a)) throw new Refused("TypeError", "argument " + (i + 1) + " must be a " + t.getSimpleName() + ", not " + Json.write(a));
                out[i] = a;
            }
        }
        return out;
    }

    static final List<String> TAKES_A_TASK_ID = List.of("submit", "info", "complete", "fail", "cancel",
        "cancel_requested", "retry", "add_dependency");

    /** The protocol's types: a task id is a string or an integer, deps an array of them. */
    static void checkIds(String method, List<Object> args) {
        if (!"scheduler".equals(system) || !TAKES_A_TASK_ID.contains(method) || args.isEmpty()) return;
        checkId(args.get(0), "a task id");
        if (method.equals("submit") && args.size() > 1) {
            if (!(args.get(1) instanceof List<?> deps)) throw new Refused("TypeError", "deps must be an array of task ids, not " + Json.write(args.get(1)));
            for (Object d : deps) checkId(d, "a dependency");
        }
    }

    static void checkId(Object id, String what) {
        if (!(id instanceof String) && !(id instanceof Long)) throw new Refused("TypeError", what + " must be a string or an integer, not " + Json.write(id));
    }

    static Object call(Instance inst, String method, List<Object> args) throws Exception {
        checkIds(method, args);
        Method m = null;
        for (Method c : methods(method)) if (c.getParameterCount() == args.size()) m = c;
        if (m == null) {  // trailing optional arguments the checker sent as null
            for (Method c : methods(method)) {
                if (c.getParameterCount() < args.size() && args.subList(c.getParameterCount(), args.size()).stream().allMatch(x -> x == null)) {
                    m = c;
                    args = args.subList(0, c.getParameterCount());
                }
            }
        }
        if (m == null) throw new Refused("TypeError", impl.getSimpleName() + " has no method " + method + " of " + args.size() + " arguments");
        Object value = m.invoke(inst.obj, convert(m.getParameterTypes(), args, inst));
        if (method.equals("submit")) inst.taskIds.add(args.get(0));
        if (method.equals("schedule") || method.equals("schedule_after")) {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("handle", inst.idOf(value));
            h.put("deadline", read(value, "deadline"));
            return h;
        }
        if (method.equals("advance")) {
            List<Object> ids = new ArrayList<>();
            for (Object h : (Collection<?>) value) ids.add(inst.idOf(h));
            return ids;
        }
        return value;
    }

    /** A field or accessor of a handle (a record component, a public field, a getter). */
    static Object read(Object obj, String name) {
        try { return obj.getClass().getMethod(name).invoke(obj); } catch (ReflectiveOperationException e) { /* next */ }
        try { return obj.getClass().getField(name).get(obj); } catch (ReflectiveOperationException e) { /* next */ }
        try { return obj.getClass().getMethod("get" + Character.toUpperCase(name.charAt(0)) + name.substring(1)).invoke(obj); } catch (ReflectiveOperationException e) { return null; }
    }

    static Map<String, Object> errorOf(Throwable e) {
        Map<String, Object> out = new LinkedHashMap<>();
        String name = e instanceof Refused r ? r.name : e.getClass().getSimpleName();
        if (e instanceof IllegalArgumentException) name = "ValueError";
        if (e instanceof ClassCastException) name = "TypeError";
        if (e instanceof UnsupportedOperationException) name = "NotImplementedError";
        out.put("name", name);
        out.put("message", String.valueOf(e.getMessage()));
        for (Field f : e.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) continue;
            try { out.put(snake(f.getName()), f.get(e)); } catch (IllegalAccessException x) { /* skip */ }
        }
        return out;
    }

    /** A minimal JSON reader and writer (the JDK has none). */
    static final class Json {
        final String s;
        int i;
        Json(String s) { this.s = s; }

        Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            return number();
        }

        void skip() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            skip();
            if (s.charAt(i) == '}') { i++; return m; }
            while (true) {
                skip();
                String k = string();
                skip();
                i++; // ':'
                m.put(k, value());
                skip();
                if (s.charAt(i++) == '}') return m;
            }
        }

        List<Object> array() {
            List<Object> a = new ArrayList<>();
            i++;
            skip();
            if (s.charAt(i) == ']') { i++; return a; }
            while (true) {
                a.add(value());
                skip();
                if (s.charAt(i++) == ']') return a;
            }
        }

        String string() {
            StringBuilder b = new StringBuilder();
            i++;
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') { b.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
        }

        Object number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String text = s.substring(start, i);
            if (text.contains(".") || text.contains("e") || text.contains("E")) return Double.parseDouble(text);
            return Long.parseLong(text);
        }

        static String write(Object v) {
            StringBuilder b = new StringBuilder();
            write(b, v);
            return b.toString();
        }

        static void write(StringBuilder b, Object v) {
            if (v == null) { b.append("null"); return; }
            if (v instanceof String str) { quote(b, str); return; }
            if (v instanceof Boolean || v instanceof Long || v instanceof Integer || v instanceof Short) { b.append(v); return; }
            if (v instanceof Number n) { b.append(n.doubleValue()); return; }
            if (v instanceof Enum<?> e) { quote(b, e.name()); return; }
            if (v instanceof Map<?, ?> m) {
                b.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) b.append(',');
                    first = false;
                    quote(b, String.valueOf(e.getKey()));
                    b.append(':');
                    write(b, e.getValue());
                }
                b.append('}');
                return;
            }
            if (v instanceof Collection<?> c) { writeAll(b, c); return; }
            if (v.getClass().isArray()) {
                List<Object> items = new ArrayList<>();
                for (int k = 0; k < java.lang.reflect.Array.getLength(v); k++) items.add(java.lang.reflect.Array.get(v, k));
                writeAll(b, items);
                return;
            }
            Map<String, Object> fields = new LinkedHashMap<>();  // a record or a plain object
            if (v.getClass().isRecord()) {
                for (RecordComponent rc : v.getClass().getRecordComponents()) {
                    try { fields.put(snake(rc.getName()), rc.getAccessor().invoke(v)); } catch (ReflectiveOperationException e) { /* skip */ }
                }
            } else {
                for (Field f : v.getClass().getFields()) {
                    if (Modifier.isStatic(f.getModifiers())) continue;
                    try { fields.put(snake(f.getName()), f.get(v)); } catch (IllegalAccessException e) { /* skip */ }
                }
            }
            write(b, fields);
        }

        static void writeAll(StringBuilder b, Collection<?> c) {
            b.append('[');
            boolean first = true;
            for (Object x : c) {
                if (!first) b.append(',');
                first = false;
                write(b, x);
            }
            b.append(']');
        }

        static void quote(StringBuilder b, String str) {
            b.append('"');
            for (char c : str.toCharArray()) {
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                else b.append(c);
            }
            b.append('"');
        }
    }

    private Shim() {}
}
