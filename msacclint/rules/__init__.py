"""The rules, one sub-package per checklist area. The engine finds them by walking this
package (msacclint.engine.registry); nothing needs registering by hand."""
