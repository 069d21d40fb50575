#include "options.hpp"

namespace flux::python {

std::string keyword_of(std::string_view flag, bool negated) {
  if (const auto comma = flag.rfind(','); comma != std::string_view::npos) {
    flag.remove_prefix(comma + 1);
  }
  while (flag.starts_with('-')) flag.remove_prefix(1);
  if (negated && flag.starts_with("no-")) flag.remove_prefix(3);
  std::string name(flag);
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

py::object take(py::dict& kwargs, const char* name) {
  if (!kwargs.contains(name)) return py::object();
  py::object v = kwargs[name];
  PyDict_DelItemString(kwargs.ptr(), name);
  return v;
}

void reject_unknown(const py::dict& kwargs, std::string_view function) {
  for (const auto& item : kwargs) {
    throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" +
                         std::string(py::str(item.first)) + "'");
  }
}

std::string text_of(py::handle value) {
  return std::string(py::str(value));
}

std::string string_arg(py::handle value, std::string_view name) {
  if (!py::isinstance<py::str>(value)) {
    throw py::type_error(std::string(name) + ": expected a str, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  }
  return value.cast<std::string>();
}

bool bool_arg(py::handle value, std::string_view name) {
  if (!py::isinstance<py::bool_>(value)) {
    throw py::type_error(std::string(name) + ": expected a bool, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  }
  return value.cast<bool>();
}

std::string path_arg(py::handle value, std::string_view name) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (!py::hasattr(value, "__fspath__")) return string_arg(value, name);
  return string_arg(py::module_::import("os").attr("fspath")(value), name);
}

}  // namespace flux::python
