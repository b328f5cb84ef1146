// schedcheck's C++ shim (specs/protocol.md, protocol 1): C++17 and Debian's nlohmann-json3-dev.
// Timing wheels only (a scheduler's surface is for the JavaScript and Java shims).
//
//   // my_wheel.cpp
//   #include "my_wheel.hpp"
//   #include "shim.hpp"
//   int main() { return schedcheck::serve_wheel<MyWheel>(); }
//
//   g++ -std=c++17 -O2 -I path/to/schedcheck/shims my_wheel.cpp -o my_wheel
//   schedcheck check wheel --exec ./my_wheel
//
// The wheel class W has, with the contract's names (specs/wheel.md section 3):
//   W(std::int64_t tick, std::int64_t wheel_size, const schedcheck::WheelOptions& options);
//   static inline const std::vector<std::string> OPTIONS{"start", ...};   // those it accepts
//   H schedule(std::int64_t deadline, const std::string& callback);     // H: std::shared_ptr<T>
//   H schedule_after(std::int64_t delay, const std::string& callback);  // with T::deadline
//   bool cancel(const H& handle);
//   std::vector<H> advance(std::int64_t now);
//   std::int64_t pending();
//   std::int64_t lag_ticks();                                            // optional
// A callback is its name (callbacks stay on the checker's side). Errors are exceptions: the
// reply's name is the exception's class name (WheelFullError...), std::invalid_argument,
// std::out_of_range and std::domain_error count as ValueError; throw schedcheck::ContractError
// to add fields. An argument of the wrong JSON type is refused with TypeError before the call,
// as the compiler refuses it. Log to std::cerr: std::cout carries protocol lines only.
#pragma once

#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedcheck {

using json = nlohmann::json;

struct WheelOptions {
    std::optional<std::int64_t> start, max_catchup_ticks, max_pending;
};

/** An error reply with fields: ContractError("WheelFullError", "...", {{"pending", 3}}). */
struct ContractError : std::runtime_error {
    std::string name;
    json fields;
    ContractError(std::string n, const std::string& message, json f = json::object())
        : std::runtime_error(message), name(std::move(n)), fields(std::move(f)) {}
};

namespace detail {

struct TypeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline std::int64_t integer(const json& value, const char* what) {
    if (!value.is_number_integer()) throw TypeError(std::string(what) + " must be an integer, not " + value.dump());
    return value.get<std::int64_t>();
}

inline std::string callback(const json& value) {
    if (!value.is_string()) throw TypeError("callback must be callable, not " + value.dump());
    return value.get<std::string>();
}

inline std::string demangled(const std::type_info& type) {
    int status = 0;
    char* name = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
    std::string out = status == 0 && name ? name : type.name();
    std::free(name);
    auto at = out.rfind("::");
    return at == std::string::npos ? out : out.substr(at + 2);
}

template <typename W, typename = void>
struct has_lag_ticks : std::false_type {};
template <typename W>
struct has_lag_ticks<W, std::void_t<decltype(std::declval<W&>().lag_ticks())>> : std::true_type {};

template <typename W>
struct Instance {
    using H = decltype(std::declval<W&>().schedule(0, std::string()));
    std::unique_ptr<W> wheel;
    std::vector<H> handles;
    std::unordered_map<const void*, std::int64_t> ids;

    std::int64_t id_of(const H& h) {
        auto found = ids.find(h.get());
        if (found != ids.end()) return found->second;
        auto id = static_cast<std::int64_t>(handles.size());
        ids.emplace(h.get(), id);
        handles.push_back(h);
        return id;
    }
};

template <typename W>
json call(std::map<std::int64_t, Instance<W>>& instances, Instance<W>& inst, const std::string& method,
          const json& args) {
    W& w = *inst.wheel;
    if (method == "schedule" || method == "schedule_after") {
        auto h = method == "schedule" ? w.schedule(integer(args.at(0), "deadline"), callback(args.at(1)))
                                      : w.schedule_after(integer(args.at(0), "delay"), callback(args.at(1)));
        return {{"handle", inst.id_of(h)}, {"deadline", h->deadline}};
    }
    if (method == "cancel") {
        const json& ref = args.at(0);
        if (!ref.is_object() || !ref.contains("handle")) throw TypeError("cancel() takes a handle");
        auto owner = instances.find(ref.value("instance", std::int64_t(-1)));
        auto id = ref["handle"].get<std::int64_t>();
        if (owner == instances.end() || id < 0 || id >= static_cast<std::int64_t>(owner->second.handles.size()))
            throw TypeError("no handle " + ref.dump());
        return w.cancel(owner->second.handles[static_cast<std::size_t>(id)]);
    }
    if (method == "advance") {
        json out = json::array();
        for (const auto& h : w.advance(integer(args.at(0), "now"))) out.push_back(inst.id_of(h));
        return out;
    }
    if (method == "pending") return w.pending();
    if constexpr (has_lag_ticks<W>::value) {
        if (method == "lag_ticks") return w.lag_ticks();
    }
    throw TypeError("no method " + method);
}

inline json error_of(const std::string& name, const std::string& message, json fields = json::object()) {
    fields["name"] = name;
    fields["message"] = message;
    return fields;
}

}  // namespace detail

template <typename W>
int serve_wheel() {
    std::ios::sync_with_stdio(false);
    std::map<std::int64_t, detail::Instance<W>> instances;
    std::string line;
    while (std::getline(std::cin, line)) {
        json msg = json::parse(line);
        json reply = {{"id", msg["id"]}};
        const std::string op = msg.value("op", "");
        try {
            if (op == "hello") {
                json methods = {"schedule", "schedule_after", "cancel", "advance", "pending"};
                if constexpr (detail::has_lag_ticks<W>::value) methods.push_back("lag_ticks");
                reply["value"] = {{"protocol", 1}, {"system", msg["system"]}, {"implementation", "C++"},
                                  {"methods", methods}};
                if (msg["system"] != "wheel") throw detail::TypeError("this shim serves timing wheels only");
            } else if (op == "new") {
                const json drop = msg.value("drop", json::array());
                for (const auto& id : drop) instances.erase(id.get<std::int64_t>());
                const json& args = msg.at("args");
                if (args.size() != 2) throw detail::TypeError("a wheel takes (tick, wheel_size)");
                WheelOptions options;
                const json given = msg.value("options", json::object());
                for (const auto& [key, value] : given.items()) {
                    bool accepted = false;
                    for (const auto& name : W::OPTIONS) accepted = accepted || name == key;
                    if (!accepted) throw detail::TypeError("no option " + key);
                    if (value.is_null()) continue;
                    auto v = detail::integer(value, key.c_str());
                    if (key == "start") options.start = v;
                    if (key == "max_catchup_ticks") options.max_catchup_ticks = v;
                    if (key == "max_pending") options.max_pending = v;
                }
                auto tick = detail::integer(args[0], "tick");
                auto size = detail::integer(args[1], "wheel_size");
                instances[msg.at("instance").get<std::int64_t>()] =
                    detail::Instance<W>{std::make_unique<W>(tick, size, options), {}, {}};
                reply["value"] = nullptr;
            } else if (op == "call") {
                auto found = instances.find(msg.at("instance").get<std::int64_t>());
                if (found == instances.end()) throw detail::TypeError("no instance");
                for (const auto& a : msg.at("args"))
                    if (a.is_object() && a.contains("$object")) throw detail::TypeError(a["$object"].get<std::string>() + " is not a value of the contract");
                reply["value"] = detail::call(instances, found->second, msg.at("method").get<std::string>(), msg.at("args"));
            } else {
                reply["value"] = nullptr;
            }
        } catch (const ContractError& e) {
            reply["error"] = detail::error_of(e.name, e.what(), e.fields);
        } catch (const detail::TypeError& e) {
            reply["error"] = detail::error_of("TypeError", e.what());
        } catch (const std::invalid_argument& e) {
            reply["error"] = detail::error_of("ValueError", e.what());
        } catch (const std::out_of_range& e) {
            reply["error"] = detail::error_of("ValueError", e.what());
        } catch (const std::domain_error& e) {
            reply["error"] = detail::error_of("ValueError", e.what());
        } catch (const std::exception& e) {
            reply["error"] = detail::error_of(detail::demangled(typeid(e)), e.what());
        }
        if (op == "call" && msg.contains("queries")) {  // answers in advance (specs/protocol.md)
            auto found = instances.find(msg.at("instance").get<std::int64_t>());
            if (found != instances.end()) {
                json after = json::object();
                for (const auto& q : msg["queries"]) {
                    try {
                        if (q == "pending" || q == "lag_ticks")
                            after[q.get<std::string>()] = detail::call(instances, found->second, q.get<std::string>(), json::array());
                    } catch (const std::exception&) { /* asked for real when needed */ }
                }
                reply["after"] = after;
            }
        }
        std::cout << reply.dump() << '\n' << std::flush;
        if (op == "shutdown") return 0;
    }
    return 0;
}

}  // namespace schedcheck
