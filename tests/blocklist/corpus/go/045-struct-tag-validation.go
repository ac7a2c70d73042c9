package main

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

type Address struct {
	Street string `validate:"required"`
	City   string `validate:"required"`
	Zip    string `validate:"pattern=^[0-9]{4} ?[A-Z]{2}$"`
}

type SignupForm struct {
	Username string   `json:"username" validate:"required,min=3,max=16,pattern=^[a-z0-9_]+$"`
	Email    string   `json:"email" validate:"required,pattern=^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"`
	Age      int      `json:"age" validate:"min=13,max=130"`
	Tags     []string `json:"tags" validate:"max=3"`
	Address  Address  `json:"address"`
	Referrer string   `json:"referrer,omitempty"`
}

// Validate walks the struct with reflection and applies the rules found in
// each field's `validate:"..."` tag. Nested structs are validated too.
func Validate(v interface{}) []string {
	return validate(reflect.ValueOf(v), "")
}

func validate(v reflect.Value, prefix string) []string {
	var errs []string
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f, fv := t.Field(i), v.Field(i)
		name := prefix + f.Name
		if fv.Kind() == reflect.Struct {
			errs = append(errs, validate(fv, name+".")...)
			continue
		}
		tag := f.Tag.Get("validate")
		if tag == "" {
			continue
		}
		// pattern= may contain commas, so it must come last in the tag.
		rules := strings.SplitN(tag, ",pattern=", 2)
		parts := strings.Split(rules[0], ",")
		if len(rules) == 2 {
			parts = append(parts, "pattern="+rules[1])
		}
		for _, rule := range parts {
			key, arg, _ := strings.Cut(rule, "=")
			n, _ := strconv.Atoi(arg)
			var size int
			switch fv.Kind() {
			case reflect.String, reflect.Slice:
				size = fv.Len()
			case reflect.Int:
				size = int(fv.Int())
			}
			switch {
			case key == "required" && fv.IsZero():
				errs = append(errs, name+": is required")
			case key == "min" && size < n:
				errs = append(errs, fmt.Sprintf("%s: must be at least %d", name, n))
			case key == "max" && size > n:
				errs = append(errs, fmt.Sprintf("%s: must be at most %d", name, n))
			case key == "pattern" && fv.Len() > 0 && !regexp.MustCompile(arg).MatchString(fv.String()):
				errs = append(errs, fmt.Sprintf("%s: %q does not match %s", name, fv.String(), arg))
			}
		}
	}
	return errs
}

func main() {
	forms := []SignupForm{
		{Username: "gopher_42", Email: "gopher@example.com", Age: 30, Tags: []string{"go"},
			Address: Address{"Keizersgracht 1", "Amsterdam", "1015 CJ"}},
		{Username: "Al", Email: "not-an-email", Age: 9, Tags: []string{"a", "b", "c", "d"},
			Address: Address{City: "Utrecht", Zip: "12345"}},
		{},
	}
	for i, f := range forms {
		errs := Validate(f)
		fmt.Printf("form %d: %d problem(s)\n", i+1, len(errs))
		for _, e := range errs {
			fmt.Println("   -", e)
		}
	}
	field, _ := reflect.TypeOf(SignupForm{}).FieldByName("Referrer")
	fmt.Printf("Referrer json tag: %q\n", field.Tag.Get("json"))
}
