package main

func run(args []string, verbose bool) error {
	return validate(args)
}
